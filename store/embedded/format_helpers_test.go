package embedded

import "github.com/ibid-dev/ibid/store"

// The tests' short forms of the log's encoders and decoders.

// appendPut is appendPutAt without noting where the texts lie.
func appendPut(b []byte, doc *store.Document, segs []store.Segment, zero []bool, row int, vecSum uint32, unembedded bool) ([]byte, error) {
	return appendPutAt(b, doc, segs, zero, row, vecSum, unembedded, nil)
}

// decodePayload decodes a payload that did not pass a record's checksum
// (its ops' own are checked), copying the texts.
func decodePayload(p []byte, format int, ops []op) ([]op, error) {
	return decodePayloadAt(p, format, ops, -1, false)
}

// salvage is salvageAt copying the texts.
func salvage(p []byte, format int) (ops []op, lost int) { return salvageAt(p, format, -1) }
