"""What talks to the host and what is kept: the USB data port's log and requests, the stats in
nvm."""
