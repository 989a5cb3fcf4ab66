package storage

// boltRecordInteraction records the interaction in the bbolt file.
func (tx *Tx) boltRecordInteraction(in *Interaction) error {
	return nil
}
