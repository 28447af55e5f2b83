package pysnippet

import (
	"fmt"
	"io"
	"os"
)

// ReadFile reads the snippet at path, refusing what is not a regular file
// and reading at most MaxBytes (+1, to tell a larger file), so that a
// device, a FIFO or a huge file costs nothing. Errors name path.
func ReadFile(path string) ([]byte, error) {
	f, err := os.Open(path)
	if err != nil {
		return nil, fmt.Errorf("read snippet: %w", err)
	}
	defer f.Close()
	st, err := f.Stat()
	if err != nil {
		return nil, fmt.Errorf("read snippet: %w", err)
	}
	if !st.Mode().IsRegular() {
		return nil, fmt.Errorf("%s: not a regular file", path)
	}
	b, err := io.ReadAll(io.LimitReader(f, MaxBytes+1))
	if err != nil {
		return nil, fmt.Errorf("read snippet %s: %w", path, err)
	}
	if len(b) > MaxBytes {
		return nil, fmt.Errorf("%s: larger than the %d bytes a snippet may have", path, MaxBytes)
	}
	return b, nil
}
