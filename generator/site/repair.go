package site

import (
	"fmt"
	"os"
	"path/filepath"
	"regexp"
	"sort"
)

// repairSwap finishes what a build killed during its swap left behind.
// A build stages into .NAME.new-N beside dest; where the file system
// cannot exchange two directories at once, it moves dest aside to
// .NAME.new-N.old and then renames the staging directory to dest. Killed
// between the two renames, there is no dest: the previous output, whole,
// is in the .old directory and is put back. Every other leftover staging
// directory is removed. It returns what it did, for the build's report.
func repairSwap(dest string) ([]string, error) {
	parent, base := filepath.Dir(dest), filepath.Base(dest)
	entries, err := os.ReadDir(parent)
	if os.IsNotExist(err) {
		return nil, nil
	}
	if err != nil {
		return nil, fmt.Errorf("look for an interrupted build beside %s: %w", dest, err)
	}
	re := regexp.MustCompile(`^\.` + regexp.QuoteMeta(base) + `\.new-[0-9]+(\.old)?$`)
	var olds, staged []string
	for _, e := range entries {
		if !e.IsDir() || !re.MatchString(e.Name()) {
			continue
		}
		p := filepath.Join(parent, e.Name())
		if filepath.Ext(e.Name()) == ".old" {
			olds = append(olds, p)
		} else {
			staged = append(staged, p)
		}
	}
	sort.Strings(olds)
	var did []string
	if _, err := os.Lstat(dest); os.IsNotExist(err) && len(olds) > 0 {
		// The newest moved-aside output is the last one published.
		last := olds[len(olds)-1]
		if _, err := os.Stat(filepath.Join(last, filepath.FromSlash(OutputMarker))); err == nil {
			if err := os.Rename(last, dest); err != nil {
				return nil, fmt.Errorf("restore the output an interrupted build moved aside (%s): %w", last, err)
			}
			did = append(did, "restored "+dest+" from "+last)
			olds = olds[:len(olds)-1]
		}
	}
	for _, p := range append(olds, staged...) {
		if err := os.RemoveAll(p); err != nil {
			return nil, fmt.Errorf("remove %s left by an interrupted build: %w", p, err)
		}
		did = append(did, "removed "+p)
	}
	return did, nil
}
