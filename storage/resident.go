package storage

import (
	"os"
	"sync"
	"time"

	bolt "go.etcd.io/bbolt"
)

// Reading a whole file.
//
// bbolt reads a file through a memory map, and every page read stays in
// the process's resident memory until the kernel needs it: a check or a
// copy of a 1 GB file made the offline tools' resident size 1 GB for each
// mapping of it (hpkeeper shard split of 651 MiB peaked at 1.46 GB). The
// pages are the file's, already in the page cache, so dropping them from
// the mapping (madvise MADV_DONTNEED) frees nothing the kernel needs and
// costs a page fault when one is read again: boundResident does that every
// residentEvery while a long read of a read-only file runs. (A loaded
// machine may run the dropping late: the peak then grows, up to the file.)

// residentEvery is how often boundResident drops the pages read: bbolt's
// consistency check, the fastest reader, maps some 10 MB in that time
// (it touches a few bytes of each page, and the kernel maps the pages
// around each one it faults in). Dropping a 1 GB map's pages costs well
// under a millisecond when few are resident.
const residentEvery = 10 * time.Millisecond

// boundResident runs fn while dropping, every residentEvery, the pages of
// bdb's memory map that fn (and bbolt) have read, so that reading the
// whole file does not keep it resident. bdb must be open read-only (its
// map never moves) for the whole call, which stops dropping before it
// returns. Elsewhere than on Linux it just runs fn.
func boundResident(bdb *bolt.DB, fn func() error) error {
	fi, err := os.Stat(bdb.Path())
	if err != nil || !bdb.IsReadOnly() || !canDropResident {
		return fn()
	}
	addr, n := bdb.Info().Data, fi.Size()
	stop := make(chan struct{})
	var wg sync.WaitGroup
	wg.Add(1)
	go func() {
		defer wg.Done()
		t := time.NewTicker(residentEvery)
		defer t.Stop()
		for {
			select {
			case <-stop:
				return
			case <-t.C:
				dropResident(addr, n)
			}
		}
	}()
	defer func() {
		close(stop)
		wg.Wait() // never after bdb is closed: the address may be reused
		dropResident(addr, n)
	}()
	return fn()
}
