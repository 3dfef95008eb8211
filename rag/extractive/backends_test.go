package extractive

// Tests that build real libraries keep them in the embedded store.
import _ "github.com/ibid-dev/ibid/store/embedded"
