package plugin

import "fmt"

// A DeviceClass's and a request's CEL selectors become predicates on the
// device vertices; a form the plugin does not translate is refused, naming
// the selector.
func Example_translateSelector() {
	ps, _ := translateSelector("deviceclass gpu",
		`device.driver == "gpu.example.com" && device.capacity["gpu.example.com"].memory.compareTo(quantity("40Gi")) >= 0`)
	for _, p := range ps {
		fmt.Println(p)
	}
	_, err := translateSelector("claim ns/c request r", `device.attributes["gpu.example.com"].model.startsWith("H")`)
	fmt.Println(err)
	// Output:
	// driver == gpu.example.com
	// capacity:gpu.example.com/memory >= 40Gi
	// claim ns/c request r: selector "device.attributes[\"gpu.example.com\"].model.startsWith(\"H\")" not understood by gofluxion: operator or function startsWith
}
