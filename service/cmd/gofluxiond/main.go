// Command gofluxiond is the gofluxion matcher service: stand-alone, with a
// journal on local disk, or replicated with Raft. See the service README
// and gofluxiond -h.
package main

import (
	"os"

	"github.com/gofluxion/gofluxion/service/server"
)

func main() { os.Exit(server.Main(os.Args[1:], os.Stderr)) }
