import sys

from host_sim.cli import main

sys.exit(main(sys.argv[1:]))
