// Command ibid is a terminal chat for researchers who talk to their own
// documents: every claim in an answer carries a footnote number that leads
// to the passage it cites. The command line lives in package cli.
package main

import (
	"context"
	"os"

	"github.com/ibid-dev/ibid/cli"
)

func main() {
	os.Exit(cli.Main(context.Background(), os.Args))
}
