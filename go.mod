module github.com/hpkeeper/hpkeeper

go 1.25.0

require (
	github.com/BurntSushi/toml v1.6.0
	github.com/bwmarrin/discordgo v0.29.0
	github.com/gorilla/websocket v1.5.3
	github.com/rs/zerolog v1.35.1
	go.etcd.io/bbolt v1.5.0
)

require (
	github.com/mattn/go-colorable v0.1.14 // indirect
	github.com/mattn/go-isatty v0.0.20 // indirect
	golang.org/x/crypto v0.0.0-20210421170649-83a5a9bb288b // indirect
	golang.org/x/sys v0.45.0 // indirect
)
