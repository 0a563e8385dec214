//go:build tools

// runc for the test cluster's nodes (bin/kubernetes build); nothing here ships.
package runc

import _ "github.com/opencontainers/runc"
