package bib

import (
	"encoding/base64"
	"encoding/binary"
	"strings"
	"unicode/utf16"
)

// bibDeskPath reads the path in a BibDesk Bdsk-File-N field: base64 of a
// binary property list, either a dictionary {relativePath, aliasData} or
// an NSKeyedArchiver archive of one (newer BibDesk, with bookmarkData).
// The path is relative to the .bib file's folder. A field that is a plain
// path (some tools write one) is returned as it is.
func bibDeskPath(field string) (string, bool) {
	field = strings.Join(strings.Fields(plainField(field)), "")
	if field == "" {
		return "", false
	}
	data, err := base64.StdEncoding.DecodeString(field)
	if err != nil || !strings.HasPrefix(string(data), "bplist00") {
		if strings.ContainsAny(field, "/.") && !strings.HasPrefix(field, "YnBsaXN0") {
			return fileURLPath(field), true
		}
		return "", false
	}
	pl, ok := readBplist(data)
	if !ok {
		return "", false
	}
	return pl.relativePath()
}

// bplist is a binary property list (Apple's "bplist00" format) read far
// enough to find strings in dictionaries: objects are read lazily by
// index, every offset is checked, and nothing is read twice in a cycle.
type bplist struct {
	data    []byte
	offsets []int // object i starts at data[offsets[i]]
	refSize int
	top     int
}

// bpObject is one decoded object: a string, a dictionary (keys and
// values as object indexes), an array, or a UID (an NSKeyedArchiver
// reference); other kinds are left undecoded.
type bpObject struct {
	kind       byte // 's' string, 'd' dict, 'a' array, 'u' uid, 0 other
	str        string
	keys, vals []int
	uid        int
}

// maxBplistObjects bounds what a field can make us index.
const maxBplistObjects = 1 << 16

func readBplist(data []byte) (*bplist, bool) {
	if len(data) < 8+32 {
		return nil, false
	}
	tr := data[len(data)-32:]
	offSize, refSize := int(tr[6]), int(tr[7])
	n := binary.BigEndian.Uint64(tr[8:16])
	top := binary.BigEndian.Uint64(tr[16:24])
	tableAt := binary.BigEndian.Uint64(tr[24:32])
	if offSize < 1 || offSize > 8 || refSize < 1 || refSize > 8 || n == 0 || n > maxBplistObjects ||
		top >= n || tableAt >= uint64(len(data)) || tableAt+n*uint64(offSize) > uint64(len(data)-32) {
		return nil, false
	}
	p := &bplist{data: data, offsets: make([]int, n), refSize: refSize, top: int(top)}
	for i := range p.offsets {
		at := int(tableAt) + i*offSize
		off := beUint(data[at : at+offSize])
		if off < 8 || off >= uint64(len(data)-32) {
			return nil, false
		}
		p.offsets[i] = int(off)
	}
	return p, true
}

func beUint(b []byte) uint64 {
	var v uint64
	for _, c := range b {
		v = v<<8 | uint64(c)
	}
	return v
}

// object decodes object i.
func (p *bplist) object(i int) (bpObject, bool) {
	if i < 0 || i >= len(p.offsets) {
		return bpObject{}, false
	}
	at := p.offsets[i]
	end := len(p.data) - 32
	marker := p.data[at]
	kind, low := marker>>4, int(marker&0xF)
	at++
	// count reads a length: the low nibble, or 0xF and an int object.
	count := func() (int, bool) {
		if low != 0xF {
			return low, true
		}
		if at >= end || p.data[at]>>4 != 0x1 {
			return 0, false
		}
		size := 1 << (p.data[at] & 0xF)
		at++
		if size > 8 || at+size > end {
			return 0, false
		}
		v := beUint(p.data[at : at+size])
		at += size
		if v > uint64(end) {
			return 0, false
		}
		return int(v), true
	}
	refs := func(k int) ([]int, bool) {
		if k < 0 || at+k*p.refSize > end {
			return nil, false
		}
		out := make([]int, k)
		for j := range out {
			out[j] = int(beUint(p.data[at : at+p.refSize]))
			at += p.refSize
		}
		return out, true
	}
	switch kind {
	case 0x5: // ASCII string
		k, ok := count()
		if !ok || at+k > end {
			return bpObject{}, false
		}
		return bpObject{kind: 's', str: string(p.data[at : at+k])}, true
	case 0x6: // UTF-16 string
		k, ok := count()
		if !ok || at+2*k > end {
			return bpObject{}, false
		}
		u := make([]uint16, k)
		for j := range u {
			u[j] = binary.BigEndian.Uint16(p.data[at+2*j:])
		}
		return bpObject{kind: 's', str: string(utf16.Decode(u))}, true
	case 0x8: // UID
		size := low + 1
		if at+size > end {
			return bpObject{}, false
		}
		return bpObject{kind: 'u', uid: int(beUint(p.data[at : at+size]))}, true
	case 0xA: // array
		k, ok := count()
		if !ok {
			return bpObject{}, false
		}
		vals, ok := refs(k)
		return bpObject{kind: 'a', vals: vals}, ok
	case 0xD: // dictionary
		k, ok := count()
		if !ok {
			return bpObject{}, false
		}
		keys, ok := refs(k)
		if !ok {
			return bpObject{}, false
		}
		vals, ok := refs(k)
		return bpObject{kind: 'd', keys: keys, vals: vals}, ok
	}
	return bpObject{}, true
}

// relativePath finds the value of a "relativePath" key in any dictionary
// of the list, following an NSKeyedArchiver UID into its $objects array.
func (p *bplist) relativePath() (string, bool) {
	var archived []int // the $objects array of a keyed archive
	for i := range p.offsets {
		o, ok := p.object(i)
		if !ok || o.kind != 'd' {
			continue
		}
		for j, k := range o.keys {
			ko, ok := p.object(k)
			if ok && ko.kind == 's' && ko.str == "$objects" {
				if arr, ok := p.object(o.vals[j]); ok && arr.kind == 'a' {
					archived = arr.vals
				}
			}
		}
	}
	// resolve follows a UID into the archive's objects.
	resolve := func(o bpObject) (bpObject, bool) {
		if o.kind != 'u' {
			return o, true
		}
		if o.uid >= len(archived) {
			return bpObject{}, false
		}
		return p.object(archived[o.uid])
	}
	str := func(i int) string {
		o, ok := p.object(i)
		if ok {
			o, ok = resolve(o)
		}
		if !ok || o.kind != 's' {
			return ""
		}
		return o.str
	}
	for i := range p.offsets {
		o, ok := p.object(i)
		if !ok || o.kind != 'd' {
			continue
		}
		keys, vals := o.keys, o.vals
		// An archived dictionary: {NS.keys: [uid…], NS.objects: [uid…]}.
		var nsKeys, nsVals []int
		for j, k := range o.keys {
			switch str(k) {
			case "NS.keys":
				if a, ok := p.object(o.vals[j]); ok && a.kind == 'a' {
					nsKeys = a.vals
				}
			case "NS.objects":
				if a, ok := p.object(o.vals[j]); ok && a.kind == 'a' {
					nsVals = a.vals
				}
			}
		}
		if len(nsKeys) > 0 && len(nsKeys) == len(nsVals) {
			keys, vals = nsKeys, nsVals
		}
		for j, k := range keys {
			if str(k) != "relativePath" {
				continue
			}
			if v := str(vals[j]); v != "" {
				return v, true
			}
		}
	}
	return "", false
}
