package commands

import "context"

// systemAction returns the handler of a command whose meaning belongs to the
// table's rule system (/damage, /heal, /rest, …): it runs the system's action
// in one write transaction, or answers that the system does not have it.
func systemAction(name string) HandlerFunc {
	return func(ctx context.Context, s *Service, r *Request) (*Response, error) {
		return s.mutate(ctx, r, func(m *Mutation) (*Response, error) {
			act := m.System.Action(name)
			if act == nil {
				return nil, Errorf(CodeUnavailable, "/%s is not available for the %s system yet.", name, m.Table.System)
			}
			return act(m)
		})
	}
}
