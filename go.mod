module github.com/hybridgo/hybridgo

go 1.26

require (
	github.com/chzyer/readline v1.5.1
	github.com/go-echarts/go-echarts/v2 v2.6.7
	github.com/go-zeromq/zmq4 v0.17.0
	github.com/traefik/yaegi v0.16.1
	golang.org/x/sys v0.5.0
)

require (
	github.com/go-zeromq/goczmq/v4 v4.2.2 // indirect
	golang.org/x/sync v0.7.0 // indirect
	golang.org/x/text v0.15.0 // indirect
	google.golang.org/protobuf v1.36.12 // indirect
)
