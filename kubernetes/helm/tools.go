//go:build tools

// helm, to install lbk8s's chart into the test cluster as a user does (bin/kubernetes build); nothing here ships.
package helm

import _ "helm.sh/helm/v3/cmd/helm"
