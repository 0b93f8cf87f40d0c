package graph

// Names interns strings (resource types or subsystem names) into small
// integers in first-seen order. Containers keyed by types or subsystems
// iterate in that order, which Fluxion's outputs depend on (for example the
// order of types inside a pruning filter, or of subsystems in JGF paths).
type Names struct {
	list []string
	idx  map[string]int32
}

// NewNames returns a table pre-seeded with prefix, in order.
func NewNames(prefix ...string) *Names {
	n := &Names{idx: make(map[string]int32, len(prefix)+8)}
	for _, s := range prefix {
		n.Intern(s)
	}
	return n
}

// Intern returns the number of s, giving it the next number if it is new.
func (n *Names) Intern(s string) int32 {
	if id, ok := n.idx[s]; ok {
		return id
	}
	id := int32(len(n.list))
	n.list = append(n.list, s)
	n.idx[s] = id
	return id
}

// Lookup returns the number of s without interning it.
func (n *Names) Lookup(s string) (int32, bool) {
	id, ok := n.idx[s]
	return id, ok
}

// Name returns the string with number id ("" when out of range).
func (n *Names) Name(id int32) string {
	if id < 0 || int(id) >= len(n.list) {
		return ""
	}
	return n.list[id]
}

// Len is the number of interned strings.
func (n *Names) Len() int { return len(n.list) }

func (n *Names) clone() *Names {
	c := &Names{list: append([]string(nil), n.list...), idx: make(map[string]int32, len(n.idx))}
	for k, v := range n.idx {
		c.idx[k] = v
	}
	return c
}

// Fixed prefixes of the interning tables (spec model.md §5).
var (
	typePrefix      = []string{"cluster", "core", "socket", "gpu", "node", "rack", "slot", "xor_slot", "ssd", "storage_node", "*", ""}
	subsystemPrefix = []string{"containment"}
)

// Well-known type numbers, valid in every graph because of the fixed prefix.
const (
	TypeCluster     TypeID = 0
	TypeCore        TypeID = 1
	TypeSocket      TypeID = 2
	TypeGPU         TypeID = 3
	TypeNode        TypeID = 4
	TypeRack        TypeID = 5
	TypeSlot        TypeID = 6
	TypeXorSlot     TypeID = 7
	TypeSSD         TypeID = 8
	TypeStorageNode TypeID = 9
	TypeAny         TypeID = 10 // "*", the wildcard pruning anchor

	// Containment is the default dominant subsystem.
	Containment SubsystemID = 0
)
