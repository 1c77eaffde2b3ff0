//go:build shoaldriver

// One shape of SwarmKit's BenchmarkScheduler suite, timed in two parts. This file is
// compiled into github.com/moby/swarmkit/v2/manager/scheduler (through `go test -overlay`,
// see ../README.md), because tick() and the functions it calls are unexported.
//
// The store is built as benchScheduler builds it (scheduler_test.go): READY nodes, every
// third one with the "network" plugin, PENDING tasks desired RUNNING, with constraints
// attached to a network whose driver is "network". The scheduler is prepared as Run
// prepares it before its first tick (volumes filter, setupTasksList in a View, the
// preassigned pass), without Run's goroutine or the watch queue. Then one tick, split:
//
//	decide   grouping the unassigned tasks and scheduleTaskGroup per group or one-off task
//	commit   applySchedulingDecisions: the memdb transactions writing every task ASSIGNED
//
// Parameters come from the environment: SHOAL_SK_NODES, SHOAL_SK_TASKS,
// SHOAL_SK_CONSTRAINTS (1 or 0), SHOAL_SK_GROUPING ("per-task": no SpecVersion, every task
// a one-off as in SwarmKit's benchmark; "service": one service, one SpecVersion, one
// group); SHOAL_SK_REPS, how many times the shape is placed (1 unless told), each in a
// store of its own, the middle one reported beside every one. A 100-node × 2,000-task
// shape runs first, unmeasured. Prints one JSON line.
package scheduler

import (
	"context"
	"encoding/json"
	"fmt"
	"os"
	"runtime"
	"sort"
	"strconv"
	"syscall"
	"testing"
	"time"

	"github.com/moby/swarmkit/v2/api"
	"github.com/moby/swarmkit/v2/identity"
	"github.com/moby/swarmkit/v2/manager/state/store"
)

type shoalShape struct {
	Nodes       int       `json:"nodes"`
	Tasks       int       `json:"tasks"`
	Constraints bool      `json:"constraints"`
	Grouping    string    `json:"grouping"`
	DecideMs    float64   `json:"decideMs"`
	CommitMs    float64   `json:"commitMs"`
	DecideRuns  []float64 `json:"decideRuns"`
	CommitRuns  []float64 `json:"commitRuns"`
	MaxRssMiB   float64   `json:"maxRssMiB"`
}

func shoalFillStore(s *store.MemoryStore, nodes, tasks int, constraints bool, grouping string) error {
	return s.Update(func(tx store.Tx) error {
		for i := 0; i < nodes; i++ {
			n := &api.Node{
				ID: identity.NewID(),
				Spec: api.NodeSpec{
					Annotations: api.Annotations{Name: "name" + strconv.Itoa(i), Labels: make(map[string]string)},
				},
				Status:      api.NodeStatus{State: api.NodeStatus_READY},
				Description: &api.NodeDescription{Engine: &api.EngineDescription{}},
			}
			if i%3 == 0 {
				n.Description.Engine.Plugins = []api.PluginDescription{{Name: "network", Type: "Network"}}
			}
			if err := store.CreateNode(tx, n); err != nil {
				return err
			}
		}
		for i := 0; i < tasks; i++ {
			id := "task" + strconv.Itoa(i)
			t := &api.Task{
				ID:                 id,
				DesiredState:       api.TaskStateRunning,
				ServiceAnnotations: api.Annotations{Name: id},
				Status:             api.TaskStatus{State: api.TaskStatePending},
			}
			if grouping == "service" {
				t.ServiceID = "svc"
				t.ServiceAnnotations = api.Annotations{Name: "svc"}
				t.Slot = uint64(i + 1)
				t.SpecVersion = &api.Version{Index: 1}
			}
			if constraints {
				t.Networks = []*api.NetworkAttachment{{Network: &api.Network{DriverState: &api.Driver{Name: "network"}}}}
			}
			if err := store.CreateTask(tx, t); err != nil {
				return err
			}
		}
		return nil
	})
}

// shoalDecide is tick() up to applySchedulingDecisions.
func (s *Scheduler) shoalDecide(ctx context.Context) map[string]schedulingDecision {
	type commonSpecKey struct {
		serviceID   string
		specVersion api.Version
	}
	tasksByCommonSpec := make(map[commonSpecKey]map[string]*api.Task)
	var oneOffTasks []*api.Task
	schedulingDecisions := make(map[string]schedulingDecision, len(s.unassignedTasks))

	for taskID, t := range s.unassignedTasks {
		if t == nil || t.NodeID != "" {
			delete(s.unassignedTasks, taskID)
			continue
		}
		if t.SpecVersion != nil {
			key := commonSpecKey{serviceID: t.ServiceID, specVersion: *t.SpecVersion}
			if tasksByCommonSpec[key] == nil {
				tasksByCommonSpec[key] = make(map[string]*api.Task)
			}
			tasksByCommonSpec[key][taskID] = t
		} else {
			oneOffTasks = append(oneOffTasks, t)
		}
		delete(s.unassignedTasks, taskID)
	}

	for _, taskGroup := range tasksByCommonSpec {
		s.scheduleTaskGroup(ctx, taskGroup, schedulingDecisions)
	}
	for _, t := range oneOffTasks {
		s.scheduleTaskGroup(ctx, map[string]*api.Task{t.ID: t}, schedulingDecisions)
	}
	return schedulingDecisions
}

func shoalRunShape(nodes, tasks int, constraints bool, grouping string) (decide, commit time.Duration, err error) {
	ctx := context.Background()
	s := store.NewMemoryStore(nil)
	defer s.Close()
	if err := shoalFillStore(s, nodes, tasks, constraints, grouping); err != nil {
		return 0, 0, err
	}

	sched := New(s)
	sched.pipeline.AddFilter(&VolumesFilter{vs: sched.volumes})
	s.View(func(tx store.ReadTx) { err = sched.setupTasksList(tx) })
	if err != nil {
		return 0, 0, err
	}
	sched.processPreassignedTasks(ctx)
	if len(sched.unassignedTasks) != tasks || len(sched.nodeSet.nodes) != nodes {
		return 0, 0, fmt.Errorf("scheduler holds %d unassigned tasks and %d nodes, expected %d and %d", len(sched.unassignedTasks), len(sched.nodeSet.nodes), tasks, nodes)
	}
	runtime.GC()

	t0 := time.Now()
	decisions := sched.shoalDecide(ctx)
	decide = time.Since(t0)

	if len(decisions) != tasks {
		return 0, 0, fmt.Errorf("%d decisions for %d tasks", len(decisions), tasks)
	}
	for id, d := range decisions {
		if d.new.NodeID == "" || d.new.Status.State != api.TaskStateAssigned {
			return 0, 0, fmt.Errorf("task %s not placed: %s", id, d.new.Status.Err)
		}
	}

	t1 := time.Now()
	successful, failed := sched.applySchedulingDecisions(ctx, decisions)
	commit = time.Since(t1)

	if len(failed) != 0 || len(successful) != tasks {
		return 0, 0, fmt.Errorf("commit: %d successful, %d failed of %d", len(successful), len(failed), tasks)
	}
	var all []*api.Task
	s.View(func(tx store.ReadTx) { all, err = store.FindTasks(tx, store.All) })
	if err != nil {
		return 0, 0, err
	}
	for _, t := range all {
		if t.NodeID == "" || t.Status.State != api.TaskStateAssigned {
			return 0, 0, fmt.Errorf("task %s is %s in the store after the commit", t.ID, t.Status.State)
		}
	}
	return decide, commit, nil
}

// shoalMiddle is the middle value of runs (the upper of the two middle ones when even), as the Shoal side takes it.
func shoalMiddle(runs []float64) float64 {
	sorted := append([]float64(nil), runs...)
	sort.Float64s(sorted)
	return sorted[len(sorted)/2]
}

func shoalEnvInt(t *testing.T, name string) int {
	v, err := strconv.Atoi(os.Getenv(name))
	if err != nil || v <= 0 {
		t.Fatalf("%s must be a positive integer, got %q", name, os.Getenv(name))
	}
	return v
}

func TestShoalDriver(t *testing.T) {
	nodes := shoalEnvInt(t, "SHOAL_SK_NODES")
	tasks := shoalEnvInt(t, "SHOAL_SK_TASKS")
	constraints := os.Getenv("SHOAL_SK_CONSTRAINTS") == "1"
	grouping := os.Getenv("SHOAL_SK_GROUPING")
	if grouping != "per-task" && grouping != "service" {
		t.Fatalf(`SHOAL_SK_GROUPING must be "per-task" or "service", got %q`, grouping)
	}

	reps := 1
	if os.Getenv("SHOAL_SK_REPS") != "" {
		reps = shoalEnvInt(t, "SHOAL_SK_REPS")
	}

	if _, _, err := shoalRunShape(100, 2_000, constraints, grouping); err != nil {
		t.Fatalf("warm-up: %v", err)
	}
	decideRuns := make([]float64, 0, reps)
	commitRuns := make([]float64, 0, reps)
	for rep := 0; rep < reps; rep++ {
		decide, commit, err := shoalRunShape(nodes, tasks, constraints, grouping)
		if err != nil {
			t.Fatal(err)
		}
		decideRuns = append(decideRuns, float64(decide.Nanoseconds())/1e6)
		commitRuns = append(commitRuns, float64(commit.Nanoseconds())/1e6)
	}

	var ru syscall.Rusage
	if err := syscall.Getrusage(syscall.RUSAGE_SELF, &ru); err != nil {
		t.Fatal(err)
	}
	line, _ := json.Marshal(shoalShape{
		Nodes: nodes, Tasks: tasks, Constraints: constraints, Grouping: grouping,
		DecideMs:   shoalMiddle(decideRuns),
		CommitMs:   shoalMiddle(commitRuns),
		DecideRuns: decideRuns,
		CommitRuns: commitRuns,
		MaxRssMiB:  float64(ru.Maxrss) / 1024,
	})
	fmt.Println(string(line))
}
