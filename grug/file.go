package grug

import (
	"os"

	"github.com/gofluxion/gofluxion/graph"
)

// ReadFile is Read on the contents of the named file. A file that cannot
// be read yields an *Error wrapping the file system error (Fluxion treats an
// unreadable file as an empty document, hence Fluxion() is "error in reading
// grug string; ").
func ReadFile(path string) (*graph.Graph, error) {
	data, err := os.ReadFile(path)
	if err != nil {
		return nil, &Error{Reason: err.Error(), fluxion: fluxionReadError, err: err}
	}
	return Read(data)
}
