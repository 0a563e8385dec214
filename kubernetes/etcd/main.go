// etcd for lbk8s's tests and demo: the server of the pinned go.etcd.io/etcd release; nothing here ships.
package main

import (
	"os"

	"go.etcd.io/etcd/server/v3/etcdmain"
)

func main() { etcdmain.Main(os.Args) }
