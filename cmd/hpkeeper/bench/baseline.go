package bench

import (
	"encoding/binary"
	"fmt"
	"os"
	"path/filepath"
	"time"

	bolt "go.etcd.io/bbolt"
)

// baselines are the disk's own limits, measured in the benchmark directory.
type baselines struct {
	fsyncRate float64       // fdatasync calls per second (4 KiB overwrite each)
	fsyncMean time.Duration // mean time of one write + fdatasync
	boltRate  float64       // committed bbolt Updates per second, one put each
	boltMean  time.Duration // mean time of one such Update
}

// measureBaselines runs a plain fdatasync loop and then a loop of one bbolt
// Update per write (default options: synced commits, as hpkeeper uses), each
// for d, on files in dir that it removes afterwards.
func measureBaselines(dir string, d time.Duration) (baselines, error) {
	var b baselines
	path := filepath.Join(dir, "baseline-fsync.dat")
	f, err := os.OpenFile(path, os.O_CREATE|os.O_RDWR|os.O_TRUNC, 0o600)
	if err != nil {
		return b, err
	}
	defer os.Remove(path)
	buf := make([]byte, 4096)
	n := 0
	start := time.Now()
	for time.Since(start) < d {
		binary.BigEndian.PutUint64(buf, uint64(n))
		if _, err := f.WriteAt(buf, 0); err != nil {
			f.Close()
			return b, err
		}
		if err := fdatasync(f); err != nil {
			f.Close()
			return b, fmt.Errorf("fdatasync: %w", err)
		}
		n++
	}
	el := time.Since(start)
	b.fsyncRate, b.fsyncMean = float64(n)/el.Seconds(), el/time.Duration(n)
	if err := f.Close(); err != nil {
		return b, err
	}

	bpath := filepath.Join(dir, "baseline-bbolt.db")
	db, err := bolt.Open(bpath, 0o600, nil)
	if err != nil {
		return b, err
	}
	defer os.Remove(bpath)
	defer db.Close()
	bucket := []byte("baseline")
	val := make([]byte, 1024)
	n = 0
	start = time.Now()
	for time.Since(start) < d {
		key := binary.BigEndian.AppendUint64(nil, uint64(n))
		err := db.Update(func(tx *bolt.Tx) error {
			bk, err := tx.CreateBucketIfNotExists(bucket)
			if err != nil {
				return err
			}
			return bk.Put(key, val)
		})
		if err != nil {
			return b, err
		}
		n++
	}
	el = time.Since(start)
	b.boltRate, b.boltMean = float64(n)/el.Seconds(), el/time.Duration(n)
	return b, nil
}
