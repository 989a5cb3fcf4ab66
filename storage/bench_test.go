package storage

import (
	"fmt"
	"testing"
)

// BenchmarkUpdateCharacter measures one typical command: read a character,
// put it back changed and append the event, in one committed Update.
func BenchmarkUpdateCharacter(b *testing.B) {
	db := mustOpen(b)
	setupTable(b, db, "c1", "Lister", "Rimmer", "Kryten", "Cat")
	b.ReportAllocs()
	i := 0
	for b.Loop() {
		i++
		err := db.Update(func(tx *Tx) error {
			before, err := tx.CharacterByName("c1", "rimmer")
			if err != nil {
				return err
			}
			after := *before
			after.Sheet = sheet(i % 8)
			if err := tx.PutCharacter(&after); err != nil {
				return err
			}
			return tx.AppendEvent(&Event{
				ChannelID: "c1",
				At:        t0,
				UserID:    "u-gm",
				Command:   "/damage target:Rimmer amount:4",
				Summary:   fmt.Sprintf("Rimmer takes 4 (%d)", i),
				Dice:      []string{"1d6 [4] = 4"},
				Changes:   []Change{{CharacterID: before.ID, Name: before.Name, Before: before, After: &after}},
			})
		})
		if err != nil {
			b.Fatal(err)
		}
	}
}

// BenchmarkViewCharacterByName measures a read-only lookup by name.
func BenchmarkViewCharacterByName(b *testing.B) {
	db := mustOpen(b)
	names := make([]string, 50)
	for i := range names {
		names[i] = fmt.Sprintf("Character %d", i)
	}
	setupTable(b, db, "c1", names...)
	b.ReportAllocs()
	for b.Loop() {
		err := db.View(func(tx *Tx) error {
			_, err := tx.CharacterByName("c1", "character 25")
			return err
		})
		if err != nil {
			b.Fatal(err)
		}
	}
}
