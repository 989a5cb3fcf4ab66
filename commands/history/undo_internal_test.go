package history

// SetUndoLooked makes /undo call f after it has found the event to revert
// (in a read transaction) and before its write transaction, so that an
// external test can change the table in between; the returned func puts
// things back.
func SetUndoLooked(f func()) (restore func()) {
	undoLooked = f
	return func() { undoLooked = nil }
}
