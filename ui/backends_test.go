package ui

// The real-pipeline tests open libraries in the embedded store.
import _ "github.com/ibid-dev/ibid/store/embedded"
