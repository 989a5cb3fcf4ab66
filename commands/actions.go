package commands

import "context"

// systemAction returns the handler of a command whose meaning belongs to the
// table's rule system (/damage, /heal, /rest, …): it runs the system's action
// in one write transaction, or answers that the command is not part of that
// system (/strain, say, belongs to hp-mp-wp only).
func systemAction(name string) HandlerFunc {
	return func(ctx context.Context, s *Service, r *Request) (*Response, error) {
		return s.Mutate(ctx, r, func(m *Mutation) (*Response, error) {
			act := m.System.Action(name)
			if act == nil {
				return nil, Errorf(CodeUnavailable, "/%s is not part of the %s system (/help topic:%s lists its commands).", name, m.Table.System, m.Table.System)
			}
			return act(m)
		})

	}
}
