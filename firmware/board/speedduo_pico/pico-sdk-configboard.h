// Speed Duo: pico-sdk settings of the board (none beyond the Pico's defaults; the build needs the file).
#pragma once
