package site

import (
	"bytes"
	"fmt"
	"os/exec"
	"strings"
)

// indexSearch runs Pagefind over a built site directory. The pages mark
// their main content with data-pagefind-body; the index lands in
// pagefind/ beside them. The command comes from the configuration
// (searchCommand, default npx pagefind); the site works without it.
func indexSearch(command, dir string) error {
	args := strings.Fields(command)
	if len(args) == 0 {
		return fmt.Errorf("search is on but searchCommand is empty")
	}
	cmd := exec.Command(args[0], append(args[1:], "--site", dir, "--output-subdir", "pagefind")...)
	var out bytes.Buffer
	cmd.Stdout, cmd.Stderr = &out, &out
	if err := cmd.Run(); err != nil {
		return fmt.Errorf("search index (%s): %w\n%s", command, err, strings.TrimSpace(out.String()))
	}
	return nil
}
