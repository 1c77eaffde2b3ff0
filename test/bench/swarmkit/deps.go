// Package swarmkit pins the SwarmKit module whose scheduler the driver measures. The driver
// itself (driver/scheduler_driver_test.go) is compiled into SwarmKit's scheduler package
// through `go test -overlay`; see README.md.
package swarmkit

import (
	_ "github.com/moby/swarmkit/v2/identity"
	_ "github.com/moby/swarmkit/v2/manager/scheduler"
	_ "github.com/moby/swarmkit/v2/manager/state/store"
)
