package match

import "github.com/gofluxion/gofluxion/graph"

// StoreAllOrders stores the dynamic child order of every vertex of m, as
// matchers did before orders could be derived from the out-edges: the
// reference of TestDerivedOrders.
func StoreAllOrders(m *Matcher) {
	for v := range m.g.NumVertices() {
		if !m.childOrder(graph.VertexID(v)).none() {
			m.worder(graph.VertexID(v))
		}
	}
}
