//go:build tools

// crictl, to look into the test cluster's nodes (bin/kubernetes build); nothing here ships.
package crictl

import _ "sigs.k8s.io/cri-tools/cmd/crictl"
