package plugin

import (
	"bytes"
	"compress/gzip"
	"encoding/base64"
	"io"
)

func gz(s string) string {
	var b bytes.Buffer
	w := gzip.NewWriter(&b)
	_, _ = w.Write([]byte(s))
	_ = w.Close()
	return base64.StdEncoding.EncodeToString(b.Bytes())
}

func gunzip(s string) (string, error) {
	data, err := base64.StdEncoding.DecodeString(s)
	if err != nil {
		return "", err
	}
	r, err := gzip.NewReader(bytes.NewReader(data))
	if err != nil {
		return "", err
	}
	out, err := io.ReadAll(io.LimitReader(r, 64<<20))
	return string(out), err
}
