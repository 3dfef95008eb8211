package cli

// The stores a library can live in: the embedded one (folders, and memory
// for evaluations).
import _ "github.com/ibid-dev/ibid/store/embedded"
