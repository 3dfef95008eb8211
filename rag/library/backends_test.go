package library

// The tests open libraries in the embedded store, as the command line does.
import _ "github.com/ibid-dev/ibid/store/embedded"
