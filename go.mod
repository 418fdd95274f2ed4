module github.com/hybridgo/hybridgo

go 1.26

require (
	github.com/chzyer/readline v1.5.1
	github.com/go-echarts/go-echarts/v2 v2.6.7
	github.com/traefik/yaegi v0.16.1
)

require golang.org/x/sys v0.0.0-20220310020820-b874c991c1a5 // indirect
