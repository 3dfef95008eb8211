package mmap

import "golang.org/x/sys/unix"

// mapPopulate has Linux map the memory at once rather than a page at a
// time as it is first touched: the callers read or write it all at once.
const mapPopulate = unix.MAP_POPULATE
