// Package boundedio reads a whole input under a byte limit, into one
// buffer sized up front when the size is known.
package boundedio

import "io"

// ReadAll reads r to its end, but no more than limit+1 bytes, so that a
// result longer than limit tells the caller the input is over its limit.
// The buffer starts at hint bytes (at least 512, at most limit+1): a hint
// of the input's size, plus one to see the end, reads a 44 MB graph file
// without growing and copying it step by step. Read errors are returned
// as they are.
func ReadAll(r io.Reader, hint, limit int64) ([]byte, error) {
	data := make([]byte, 0, min(max(hint, 512), limit+1))
	r = io.LimitReader(r, limit+1)
	for {
		if len(data) == cap(data) {
			data = append(data, 0)[:len(data)]
		}
		n, err := r.Read(data[len(data):cap(data)])
		data = data[:len(data)+n]
		if err == io.EOF {
			return data, nil
		}
		if err != nil {
			return nil, err
		}
	}
}
