package storage

import (
	"strconv"

	bolt "go.etcd.io/bbolt"
)

// initialMmapSize is the address space bbolt maps when it opens the file on
// a 64-bit system: 1 GiB. bbolt must remap whenever the file outgrows its
// mapping, and a remap waits for every open read transaction and blocks new
// ones, a latency spike under load; mapping ahead avoids those remaps until
// the file reaches 1 GiB. It is address space, not memory: only the pages
// read are resident.
const initialMmapSize = 1 << 30

// tuneOptions sets the bbolt options hpkeeper runs with. None of them trades
// durability: every commit is still synced (NoSync stays false, and the
// freelist is synced too).
func tuneOptions(o *bolt.Options) {
	if strconv.IntSize == 64 {
		o.InitialMmapSize = initialMmapSize
	}
}
