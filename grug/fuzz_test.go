package grug

import (
	"errors"
	"testing"

	"github.com/gofluxion/gofluxion/graph"
)

// recipeCost bounds the work Generate would do for r: the number of
// vertices it creates plus the number of ASSOCIATE pairs it examines
// (saturating at 1<<40). It lets the fuzz target skip recipes that would
// legitimately generate huge graphs.
func recipeCost(r *Recipe) (vertices, pairs int64) {
	const limit = int64(1) << 40
	mul := func(a, b int64) int64 {
		if a <= 0 || b <= 0 {
			return 0
		}
		if a > limit/b {
			return limit
		}
		return min(a*b, limit)
	}
	gen := make([]int64, len(r.pools))
	byType := map[string]int64{}
	roots := map[string]bool{}
	for _, ev := range r.events {
		if ev < 0 {
			continue
		}
		e := &r.rels[ev]
		s, t := &r.pools[e.src], &r.pools[e.dst]
		if s.root != 0 && gen[e.src] == 0 {
			if !roots[s.subsystem] {
				roots[s.subsystem] = true
				vertices++
				byType[s.typ]++
			}
			gen[e.src] = 1
		}
		gen[e.dst] = 0
		switch e.method {
		case methodMultiply:
			n := mul(gen[e.src], e.multiScale)
			gen[e.dst] = n
			vertices = min(vertices+n, limit)
			byType[t.typ] = min(byType[t.typ]+n, limit)
		case methodAssociateIn, methodAssociateByPathIn:
			n := mul(gen[e.src], byType[t.typ])
			gen[e.dst] = n
			pairs = min(pairs+n, limit)
		}
	}
	return vertices, pairs
}

const fuzzSmall = `<graphml><key id="root" for="node" attr.name="root"><default>0</default></key>
<key id="type" for="node" attr.name="type"/><key id="basename" for="node" attr.name="basename"/>
<key id="subsystem" for="node" attr.name="subsystem"><default>containment</default></key>
<key id="gen_method" for="edge" attr.name="gen_method"><default>MULTIPLY</default></key>
<key id="multi_scale" for="edge" attr.name="multi_scale"><default>1</default></key>
<key id="id_scope" for="edge" attr.name="id_scope"/>
<key id="e_subsystem" for="edge" attr.name="e_subsystem"><default>containment</default></key>
<graph edgedefault="directed">
<node id="a"><data key="root">1</data><data key="type">cluster</data><data key="basename">a</data></node>
<node id="b"><data key="type">node</data><data key="basename">b</data></node>
<node id="c"><data key="type">core</data><data key="basename">c</data></node>
<edge source="a" target="b"><data key="multi_scale">2</data></edge>
<edge source="b" target="c"><data key="multi_scale">3</data><data key="id_scope">1</data></edge>
<edge source="c" target="a"/>
</graph></graphml>`

func FuzzRead(f *testing.F) {
	f.Add([]byte(fuzzSmall))
	f.Add([]byte(ec1))
	f.Add(Cluster("x", 2, 2))
	f.Add([]byte(doc(
		vtx("c", "root=1", "type=cluster", "basename=c") +
			vtx("rack", "type=rack", "basename=rack") +
			vtx("sw", "type=switch", "basename=sw") +
			vtx("node", "type=node", "basename=node") +
			edg("c", "rack", "multi_scale=2") +
			edg("rack", "sw", "id_scope=1") +
			edg("rack", "node", "multi_scale=2", "id_scope=1") +
			vtx("net", "root=1", "type=net", "basename=net", "subsystem=net") +
			vtx("nsw", "type=switch", "basename=sw", "subsystem=net") +
			vtx("nnode", "type=node", "basename=node", "subsystem=net") +
			edg("net", "nsw", "gen_method=ASSOCIATE_IN", "e_subsystem=net") +
			edg("nsw", "nnode", "gen_method=ASSOCIATE_BY_PATH_IN", "e_subsystem=net", "as_tgt_uplvl=1", "as_src_uplvl=0"))))
	f.Add([]byte(doc(vtx("c", "root=1") + vtx("n") + edg("c", "n", "gen_method=BAD"))))
	f.Add([]byte(`<graphml><graph edgedefault="directed">`))
	f.Add([]byte(`<graphml><key id="k" for="all"><default>1</default></key><graph edgedefault="directed"/></graphml>`))
	f.Add([]byte(""))
	f.Fuzz(func(t *testing.T, data []byte) {
		r, err := Parse(data)
		if err != nil {
			var ge *Error
			if !errors.As(err, &ge) {
				t.Fatalf("Parse error %T %v", err, err)
			}
			if ge.Fluxion() == "" {
				t.Fatalf("empty Fluxion text")
			}
			return
		}
		if v, p := recipeCost(r); v > 20000 || p > 2000 {
			t.Skip("recipe too large")
		}
		g := graph.New()
		if err := r.Generate(g); err != nil {
			var ge *Error
			if !errors.As(err, &ge) {
				t.Fatalf("Generate error %T %v", err, err)
			}
			return
		}
		for i := 0; i < g.NumVertices(); i++ {
			vx := g.V(graph.VertexID(i))
			if vx.UniqID != int64(i) || len(vx.Paths) == 0 {
				t.Fatalf("vertex %d: uniq_id %d, paths %v", i, vx.UniqID, vx.Paths)
			}
		}
		// Read agrees with Parse+Generate
		g2, err := Read(data)
		if err != nil || g2.NumVertices() != g.NumVertices() || g2.NumEdges() != g.NumEdges() {
			t.Fatalf("Read differs: %v", err)
		}
	})
}
