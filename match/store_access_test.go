package match

import (
	"go/ast"
	"go/parser"
	"go/token"
	"path/filepath"
	"strings"
	"testing"
)

// TestStoreAccess checks the copy-on-write discipline of store.go
// syntactically: only store.go touches the chunks, and no code changes the
// graph except through wgraph (the graph may be shared with a clone).
func TestStoreAccess(t *testing.T) {
	files, err := filepath.Glob("*.go")
	if err != nil {
		t.Fatal(err)
	}
	// Fields and methods of the store that only store.go may use.
	private := map[string]bool{"vs": true, "es": true, "jx": true, "recs": true, "slot": true, "byJob": true, "rec": true,
		"recSlab": true, "jobChunk": true, "plSlab": true, "lastI": true, "lastOK": true, "gOwner": true, "token": true}
	// Graph methods that change it.
	mutators := map[string]bool{"SetProperty": true, "AddVertex": true, "AddEdge": true, "AddPath": true,
		"RemoveEdge": true, "Unindex": true, "SetRoot": true, "SetEdgeSubsystem": true, "Grow": true,
		"Reserve": true, "ReservePaths": true, "SetProp": true, "NextNodeRank": true, "ResetNodeRanks": true}
	fset := token.NewFileSet()
	checked := 0
	for _, f := range files {
		if strings.HasSuffix(f, "_test.go") {
			continue
		}
		file, err := parser.ParseFile(fset, f, nil, 0)
		if err != nil {
			t.Fatal(err)
		}
		checked++
		// Graph aliases: m.g, s.g and locals assigned from them.
		alias := map[string]bool{}
		isGraph := func(e ast.Expr) bool {
			switch x := e.(type) {
			case *ast.SelectorExpr:
				id, ok := x.X.(*ast.Ident)
				return ok && (id.Name == "m" || id.Name == "s") && x.Sel.Name == "g"
			case *ast.Ident:
				return alias[x.Name]
			}
			return false
		}
		// viaGraph reports whether e reaches into the graph read-only
		// (x.g..., or x.g.V(v)...).
		var viaGraph func(e ast.Expr) bool
		viaGraph = func(e ast.Expr) bool {
			switch x := e.(type) {
			case *ast.SelectorExpr:
				return isGraph(x) || viaGraph(x.X)
			case *ast.CallExpr:
				if s, ok := x.Fun.(*ast.SelectorExpr); ok {
					return isGraph(s.X) || viaGraph(s.X)
				}
			case *ast.IndexExpr:
				return viaGraph(x.X)
			case *ast.Ident:
				return alias[x.Name]
			}
			return false
		}
		ast.Inspect(file, func(n ast.Node) bool {
			switch x := n.(type) {
			case *ast.FuncDecl:
				alias = map[string]bool{}
			case *ast.AssignStmt:
				for i, r := range x.Rhs {
					if isGraph(r) && i < len(x.Lhs) {
						if id, ok := x.Lhs[i].(*ast.Ident); ok {
							alias[id.Name] = true
						}
					}
				}
				for _, l := range x.Lhs {
					if _, ok := l.(*ast.Ident); ok {
						continue
					}
					if isGraph(l) && f == "store.go" {
						continue // wgraph replaces the shared graph by its copy
					}
					if viaGraph(l) {
						t.Errorf("%s: assignment into the graph not through wgraph", fset.Position(l.Pos()))
					}
				}
			case *ast.CallExpr:
				if s, ok := x.Fun.(*ast.SelectorExpr); ok && mutators[s.Sel.Name] && (isGraph(s.X) || viaGraph(s.X)) {
					t.Errorf("%s: %s on the graph not through wgraph", fset.Position(x.Pos()), s.Sel.Name)
				}
				if s, ok := x.Fun.(*ast.SelectorExpr); ok && s.Sel.Name == "Load" && len(x.Args) > 0 && isGraph(x.Args[0]) {
					t.Errorf("%s: loading into the graph not through wgraph", fset.Position(x.Pos()))
				}
			case *ast.SelectorExpr:
				if f != "store.go" && private[x.Sel.Name] {
					t.Errorf("%s: %s is store.go's own", fset.Position(x.Pos()), x.Sel.Name)
				}
			}
			return true
		})
	}
	if checked < 20 {
		t.Fatalf("checked only %d files", checked)
	}
}
