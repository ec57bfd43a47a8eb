module bootdeck.invalid/bench/bootkube-keys

go 1.26
