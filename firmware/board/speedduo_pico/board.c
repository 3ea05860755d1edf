// Speed Duo board: the game is frozen into the firmware; the CIRCUITPY drive only needs the files
// CircuitPython runs (code.py, boot.py) and the family's settings.toml.
//
// At every power-on, before boot.py runs, board_init() brings those files onto the drive when
// they are not there, so one UF2 dragged onto a blank or stock Pico makes a Speed Duo:
//   - code.py, boot.py: written when missing or empty, when code.py is CircuitPython's sample
//     (a freshly formatted drive holds `print("Hello World!")`), or when the file is a Speed Duo
//     file of another version (its first line is ours, the rest differs). A file of the owner's
//     own is left as it is.
//   - settings.toml: written only when missing or empty (a fresh drive holds an empty one): the
//     family's settings stay through every update.
// The file contents come from drive_files.h, which firmware/build_uf2.py writes from the
// repository's code.py, boot.py and settings.toml. The UF2 holds no part of the drive, so
// flashing a newer one keeps the drive and microcontroller.nvm (the stats) as they are.

#include <string.h>

#include "supervisor/board.h"
#include "supervisor/filesystem.h"
#include "supervisor/flash.h"
#include "supervisor/shared/safe_mode.h"
#include "lib/oofatfs/ff.h"

typedef struct {
    const char *path;
    const char *data;       // what Speed Duo puts there
    UINT size;
    UINT first_line_size;   // the first line of data, newline included: marks a Speed Duo file
    bool replace_other_version;
    const char *stock;      // CircuitPython's own content to replace too (NULL: none)
} drive_file_t;

#include "drive_files.h"

// does the open file hold exactly `size` bytes of `data`? (from its current position)
static bool same_content(FIL *fp, const char *data, UINT size) {
    if (f_size(fp) != size) {
        return false;
    }
    char chunk[128];
    UINT done = 0;
    while (done < size) {
        UINT want = size - done < sizeof(chunk) ? size - done : sizeof(chunk);
        UINT got = 0;
        if (f_read(fp, chunk, want, &got) != FR_OK || got != want || memcmp(chunk, data + done, got) != 0) {
            return false;
        }
        done += got;
    }
    return true;
}

static bool wants_writing(FATFS *fs, const drive_file_t *file) {
    FIL fp;
    if (f_open(fs, &fp, file->path, FA_READ) != FR_OK) {
        return true; // missing
    }
    bool write = false;
    if (f_size(&fp) == 0) {
        write = true;
    } else if (same_content(&fp, file->data, file->size)) {
        write = false; // already ours, this version
    } else if (file->stock != NULL && f_lseek(&fp, 0) == FR_OK
               && same_content(&fp, file->stock, strlen(file->stock))) {
        write = true;
    } else if (file->replace_other_version && f_lseek(&fp, 0) == FR_OK) {
        char head[128];
        UINT want = file->first_line_size < sizeof(head) ? file->first_line_size : sizeof(head);
        UINT got = 0;
        write = f_read(&fp, head, want, &got) == FR_OK && got == want && memcmp(head, file->data, want) == 0;
    }
    f_close(&fp);
    return write;
}

static void write_file(FATFS *fs, const drive_file_t *file) {
    FIL fp;
    if (f_open(fs, &fp, file->path, FA_WRITE | FA_CREATE_ALWAYS) != FR_OK) {
        return;
    }
    UINT written = 0;
    f_write(&fp, file->data, file->size, &written);
    f_close(&fp);
}

void board_init(void) {
    if (get_safe_mode() != SAFE_MODE_NONE || !filesystem_present()) {
        return;
    }
    FATFS *fs = &filesystem_circuitpy()->fatfs;
    bool changed = false;
    for (size_t i = 0; i < sizeof(speedduo_drive_files) / sizeof(speedduo_drive_files[0]); i++) {
        if (wants_writing(fs, &speedduo_drive_files[i])) {
            write_file(fs, &speedduo_drive_files[i]);
            changed = true;
        }
    }
    // code.py changes into /lib (module file names stay short on the stock firmware's heap)
    FILINFO info;
    if (f_stat(fs, "/lib", &info) == FR_NO_FILE) {
        f_mkdir(fs, "/lib");
        changed = true;
    }
    if (changed) {
        supervisor_flash_flush();
    }
}
