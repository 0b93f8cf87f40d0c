package grug

import (
	"errors"
	"strconv"
	"strings"
	"testing"

	"github.com/gofluxion/gofluxion/graph"
)

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
	// hostile recipes (issue 13): a huge multiplicity, a deep walk, long
	// names below a multiply, quadratic ASSOCIATE pairs
	f.Add([]byte(hugeMultiplicity))
	chain := vtx("v0", "root=1", "type=cluster", "basename=c")
	for i := 1; i <= 70; i++ {
		chain += vtx("v"+strconv.Itoa(i), "type=g", "basename=g") + edg("v"+strconv.Itoa(i-1), "v"+strconv.Itoa(i))
	}
	f.Add([]byte(doc(chain)))
	f.Add([]byte(doc(vtx("c", "root=1", "type=cluster", "basename=c") + vtx("n", "type=node", "basename="+strings.Repeat("n", 4096)) +
		vtx("k", "type=core", "basename=k") + edg("c", "n") + edg("n", "k", "multi_scale=100000"))))
	f.Add([]byte(doc(vtx("c", "root=1", "type=cluster", "basename=c") + vtx("a", "type=a", "basename=a") +
		vtx("net", "root=1", "type=net", "basename=net", "subsystem=net") + vtx("na", "type=a", "basename=a", "subsystem=net") +
		vtx("nb", "type=a", "basename=a", "subsystem=net") + edg("c", "a", "multi_scale=100000") +
		edg("net", "na", "gen_method=ASSOCIATE_IN", "e_subsystem=net") + edg("na", "nb", "gen_method=ASSOCIATE_IN", "e_subsystem=net"))))
	// Small limits keep every input cheap: generation checks them before
	// it allocates, so no recipe needs to be skipped.
	lim := graph.ReadLimits{MaxVertices: 20000, MaxDepth: 64, MaxPathBytes: 1 << 22}
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
		g := graph.New()
		if err := r.GenerateLimited(g, lim); err != nil {
			var ge *Error
			if !errors.As(err, &ge) {
				t.Fatalf("Generate error %T %v", err, err)
			}
			if g.NumVertices() > lim.MaxVertices {
				t.Fatalf("%d vertices generated under a limit of %d", g.NumVertices(), lim.MaxVertices)
			}
			return
		}
		if g.NumVertices() > lim.MaxVertices {
			t.Fatalf("%d vertices generated under a limit of %d", g.NumVertices(), lim.MaxVertices)
		}
		for i := 0; i < g.NumVertices(); i++ {
			vx := g.V(graph.VertexID(i))
			if vx.UniqID != int64(i) || len(vx.Paths) == 0 {
				t.Fatalf("vertex %d: uniq_id %d, paths %v", i, vx.UniqID, vx.Paths)
			}
		}
		// ReadLimited agrees with Parse+GenerateLimited
		g2, err := ReadLimited(data, lim)
		if err != nil || g2.NumVertices() != g.NumVertices() || g2.NumEdges() != g.NumEdges() {
			t.Fatalf("Read differs: %v", err)
		}
	})
}
