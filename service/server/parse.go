package server

import (
	"github.com/gofluxion/gofluxion"
	"github.com/gofluxion/gofluxion/jobspec"
)

type jobspecT = jobspec.Jobspec

func parse(m *gofluxion.Matcher, data []byte) (*jobspec.Jobspec, error) {
	js, err := m.ParseJobspec(data)
	if err != nil {
		return nil, err
	}
	return js, nil
}

// graphTypes lists the graph's resource types (for the client's
// ParseJobspec).
func graphTypes(m *gofluxion.Matcher) []string {
	g := m.Graph()
	var out []string
	for i := range g.Types.Len() {
		out = append(out, g.Types.Name(int32(i)))
	}
	return out
}
