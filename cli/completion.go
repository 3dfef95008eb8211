package cli

import (
	"context"

	"github.com/spf13/cobra"
)

// This file completes flag values in the shell (ibid completion bash|zsh|
// fish): library names from the store, and the fixed choices.

// completeCommon registers the completions of the shared flags c declares.
func completeCommon(c *cobra.Command, cfg *Config) {
	if c.Flags().Lookup("library") != nil {
		_ = c.RegisterFlagCompletionFunc("library", func(*cobra.Command, []string, string) ([]string, cobra.ShellCompDirective) {
			return libraryNames(context.Background(), cfg), cobra.ShellCompDirectiveNoFileComp
		})
	}
	if c.Flags().Lookup("store") != nil {
		_ = c.RegisterFlagCompletionFunc("store", func(*cobra.Command, []string, string) ([]string, cobra.ShellCompDirective) {
			return nil, cobra.ShellCompDirectiveFilterDirs
		})
	}
	if c.Flags().Lookup("cite-format") != nil {
		_ = c.RegisterFlagCompletionFunc("cite-format", cobra.FixedCompletions(
			[]string{"inline", "json", "sections"}, cobra.ShellCompDirectiveNoFileComp))
	}
}
