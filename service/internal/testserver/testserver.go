// Package testserver starts an in-process stand-alone matcher service on
// loopback, for tests, examples and benchmarks.
package testserver

import (
	"net"

	"github.com/gofluxion/gofluxion"
	"github.com/gofluxion/gofluxion/service/pb"
	"github.com/gofluxion/gofluxion/service/server"
	"google.golang.org/grpc"
)

// Server is a running stand-alone service.
type Server struct {
	Addr    string
	Backend *server.Standalone
	gs      *grpc.Server
}

// Start serves a stand-alone backend with its state in dir, starting from
// initial, on a free loopback port.
func Start(dir string, initial func() (*gofluxion.Matcher, error)) (*Server, error) {
	return StartWith(dir, initial)
}

// StartWith is Start with gRPC server options (TLS, interceptors: see
// server.Security.ServerOptions).
func StartWith(dir string, initial func() (*gofluxion.Matcher, error), opts ...grpc.ServerOption) (*Server, error) {
	b, err := server.OpenStandalone(server.StandaloneOptions{Dir: dir, Initial: initial})
	if err != nil {
		return nil, err
	}
	lis, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		b.Close()
		return nil, err
	}
	gs := grpc.NewServer(opts...)
	pb.RegisterMatcherServer(gs, &server.Service{B: b})
	go gs.Serve(lis)
	return &Server{Addr: lis.Addr().String(), Backend: b, gs: gs}, nil
}

// Stop stops serving and closes the backend.
func (s *Server) Stop() error {
	s.gs.Stop()
	return s.Backend.Close()
}
