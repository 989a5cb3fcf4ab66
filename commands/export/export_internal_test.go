package export

// SetImportRunWritten makes /table import call f after it has written
// each run of its history but the last, so that an external test can
// change the channel in between; the returned func puts things back.
func SetImportRunWritten(f func(run int)) (restore func()) {
	importRunWritten = f
	return func() { importRunWritten = nil }
}

// SetExportRunRead makes /table export call f after it has read each run
// of the history (f gets the seq of the run's newest event); the returned
// func puts things back.
func SetExportRunRead(f func(hi uint64)) (restore func()) {
	exportRunRead = f
	return func() { exportRunRead = nil }
}
