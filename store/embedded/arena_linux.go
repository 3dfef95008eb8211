package embedded

import "golang.org/x/sys/unix"

// mapPopulate has Linux map the codes' memory at once rather than a page
// at a time as it is first written: the codes are all read at open.
const mapPopulate = unix.MAP_POPULATE
