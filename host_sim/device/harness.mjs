// Speed Duo device harness: the real CircuitPython firmware on an emulated RP2040 (rp2040js).
//
//   node harness.mjs CONFIG.json
//
// CONFIG (written by host_sim/device_run.py):
//   bootrom, uf2, fat          paths: RP2040 B1 bootrom (raw), firmware UF2, CIRCUITPY FAT image
//                              (fat null: the drive's flash is left erased, as on a blank Pico)
//   drive_writes               optional: true: flash writes to the CIRCUITPY drive are emulated
//                              too (below), and the drive is saved as drive.bin at the end
//   out                        folder for the recordings (below)
//   buttons                    [[t_us, gpio, pressed], ...] time-ordered contact changes
//   button_gpios               every button GPIO (released, i.e. high, from power-on)
//   panels                     per I2C controller: {sda, scl, address, mode, until_us}
//                              mode: "present" | "absent" | "nack" | "absent_until"
//   data_port                  {mode: "read" | "stop" | "never", stop_us}
//   data_send                  optional: [[t_us, hex], ...] time-ordered: bytes the host writes
//                              to the data port (USB CDC OUT on the data interface) at t_us
//                              emulated (or, if the board has not armed its OUT endpoint
//                              then, as soon as it does), in packets of at most 64 bytes
//   matches                    stop once this many match_end lines came through the data port (0: no)
//   min_us                     run at least until this emulated time
//   settle_us                  after the last match_end, run this much longer
//   wait_console               optional: with `matches`, also run until this many console
//                              lines held this text after the last match_end ({text, count};
//                              with `nvm`: the board's "stats: record N saved", its save)
//   limit_us                   never run past this emulated time
//   led_gpio                   the profiling probe pin (GPIO25)
//   probe_scans                optional: record when the firmware reads the GPIO inputs
//                              (bursts: the keypad scans) in scans.txt
//   nvm                        optional: {offset, size, load}: the flash sector of
//                              microcontroller.nvm, loaded from `load` (a file) at power-on;
//                              flash writes to it are emulated (below) and it is saved as nvm.bin
//   progress                   optional: every half second of wall time, one JSON line on
//                              stderr: {"t_us", "wall_s", "waiting": "boot" | "menu" |
//                              "match" | "stats" | "settle" | "limit", "match", "matches"}
//   pwm_slice                  optional: record every register write of this PWM slice
//                              (the piezo's: GPIO15 is slice 7, channel B) in pwm.txt
//
// Recordings in OUT: console.bin, data.bin (raw bytes of the two USB CDC ports),
// i2c0.jsonl / i2c1.jsonl (one transaction per line: t0, t1 µs, addr, ack, hex bytes,
// bit_ns), led.txt ("t_us level" per edge), pwm.txt ("t_us register value" per write: 0 CSR,
// 4 DIV, 12 CC, 16 TOP, 160 EN), result.json (why it stopped, when, wall time),
// nvm.bin and nvm_writes.jsonl (with `nvm`: the sector at the end; each erase/program, with
// its region "nvm" or "drive"), drive.bin (with `drive_writes`: the CIRCUITPY drive at the end),
// cpu_wait.txt ("t_ms wait_us" per 100 ms of emulated time: how long the core sat in WFI,
// waiting for an interrupt, e.g. in time.sleep: the idle power-off's naps),
// host_sent.jsonl (with `data_send`: each OUT packet the board took, {t_us, data hex}).
// Times are emulated µs since power-on (rp2040js cycle clock, 125 MHz, core 0 only).
// The PIO state machines run on that clock too (attachPioClock): one instruction per
// clock-divider period, [delay] cycles honoured, joined FIFOs 8 words deep.

import fs from 'node:fs';
import path from 'node:path';
import {
  I2CMode,
  Simulator,
  createSetupPacket,
  getDescriptorPacket,
  setDeviceAddressPacket,
  setDeviceConfigurationPacket,
} from 'rp2040js';

const FLASH_BASE = 0x10000000;
const CIRCUITPY_OFFSET = 0x100000;
const CIRCUITPY_SIZE = 0x100000; // the Pico's 2 MB flash: firmware and nvm, then the drive
const CYCLE_NS = 8; // 125 MHz
const PIO_WAIT_NS = 64 * CYCLE_NS; // while a state machine runs, the core waits in steps this long

function main() {
  const config = JSON.parse(fs.readFileSync(process.argv[2], 'utf8'));
  fs.mkdirSync(config.out, { recursive: true });
  const wallStart = Date.now();
  const sim = new Simulator();
  const mcu = sim.rp2040;
  const clock = mcu.clock;
  mcu.logger = { debug() {}, info() {}, warn() {}, error() {} };
  const nowUs = () => clock.nanos / 1000;

  // ---- memory: bootrom, erased flash, firmware, CIRCUITPY ----
  const rom = fs.readFileSync(config.bootrom);
  mcu.loadBootrom(new Uint32Array(rom.buffer, rom.byteOffset, rom.length >> 2));
  mcu.flash.fill(0xff);
  loadUF2(fs.readFileSync(config.uf2), mcu.flash);
  if (config.fat) mcu.flash.set(fs.readFileSync(config.fat), CIRCUITPY_OFFSET);
  // CircuitPython 10.x reads the flash chip-select at boot (BOOTSEL check): hold it high
  const ss = mcu.qspi[1];
  ss.padValue |= 0x40;
  ss.setInputValue(true);

  // ---- the PIO blocks, clocked on emulated time (attachPioClock) ----
  const pio = attachPioClock(mcu, clock);

  // ---- buttons: released (pulled up) until the schedule says otherwise ----
  const buttonPins = new Set(config.buttons.map((e) => e[1]));
  for (const gpio of config.button_gpios || []) buttonPins.add(gpio);
  for (const gpio of buttonPins) mcu.gpio[gpio].setInputValue(true);
  const edges = config.buttons;
  let edgeIndex = 0;
  const edgeAlarm = clock.createAlarm(() => {
    const t = clock.nanos;
    while (edgeIndex < edges.length && edges[edgeIndex][0] * 1000 <= t) {
      const [, gpio, pressed] = edges[edgeIndex++];
      pio.catchUp(); // the state machines see the pin as it was until now
      mcu.gpio[gpio].setInputValue(!pressed);
    }
    scheduleEdge();
  });
  function scheduleEdge() {
    if (edgeIndex < edges.length) {
      edgeAlarm.schedule(Math.max(0, edges[edgeIndex][0] * 1000 - clock.nanos));
    }
  }
  scheduleEdge();

  // ---- I2C: an SSD1306 per controller, bus time modelled ----
  const buses = config.panels.map((panel, index) => attachPanel(mcu, clock, index, panel, config.out, pio));

  // ---- flash writes to the nvm sector (and the drive): the flash chip's commands through the SSI ----
  const writable = [];
  if (config.nvm) writable.push({ name: 'nvm', offset: config.nvm.offset, size: config.nvm.size });
  if (config.drive_writes) writable.push({ name: 'drive', offset: CIRCUITPY_OFFSET, size: CIRCUITPY_SIZE });
  const flashWriter = writable.length ? attachFlashWriter(mcu, clock, config.nvm, writable, config.out) : null;

  // ---- GPIO25: the profiling probe ----
  const ledEdges = [];
  let ledLevel = -1;
  mcu.gpio[config.led_gpio ?? 25].addListener(() => {
    const pin = mcu.gpio[config.led_gpio ?? 25];
    const level = pin.outputEnable && pin.outputValue ? 1 : 0;
    if (level !== ledLevel) {
      ledLevel = level;
      ledEdges.push(`${Math.round(nowUs())} ${level}`);
    }
  });

  // ---- optional: when the firmware reads the GPIO inputs (the keypad scans), bursts only ----
  const scanReads = [];
  if (config.probe_scans) {
    const sio = mcu.sio;
    const read = sio.readUint32.bind(sio);
    let last = -1e12;
    sio.readUint32 = (offset) => {
      if (offset === 0x004) {
        const t = clock.nanos;
        if (t - last > 100000) scanReads.push(Math.round(t) / 1000);
        last = t;
      }
      return read(offset);
    };
  }

  // ---- optional: the piezo's PWM slice, every register write (the tones, host_sim/device_run.py) ----
  const pwmWrites = [];
  if (config.pwm_slice !== undefined) {
    const channel = mcu.pwm.channels[config.pwm_slice];
    const write = channel.writeRegister.bind(channel);
    channel.writeRegister = (offset, value) => {
      pwmWrites.push(`${Math.round(nowUs())} ${offset} ${value >>> 0}`);
      write(offset, value);
    };
    const en = Object.getOwnPropertyDescriptor(Object.getPrototypeOf(channel), 'en');
    Object.defineProperty(channel, 'en', {
      set(value) {
        pwmWrites.push(`${Math.round(nowUs())} 160 ${value ? 1 : 0}`);
        en.set.call(channel, value);
      },
    });
  }

  // ---- USB: a host serving both CDC interfaces ----
  const consoleFd = fs.openSync(path.join(config.out, 'console.bin'), 'w');
  const dataFd = fs.openSync(path.join(config.out, 'data.bin'), 'w');
  let consoleTail = '';
  let matchEnds = 0;
  let dataTail = '';
  let lastMatchEndUs = -1;
  const waitText = config.wait_console ? config.wait_console.text : '';
  const waitCount = config.wait_console ? config.wait_console.count : 0;
  let waitSeen = 0; // console lines holding waitText
  let consoleLine = '';
  const host = new CDCHost(mcu.usbCtrl, config.data_port || { mode: 'read' }, clock, config.data_send || []);
  let codeStarted = false; // the console said "code.py output:" or the profile's boot line
  let matchStarts = 0; // match lines through the data port (one more than ends: in a match)
  host.onConsole = (bytes) => {
    fs.writeSync(consoleFd, bytes);
    const text = Buffer.from(bytes).toString('latin1');
    consoleTail = (consoleTail + text).slice(-4096);
    if (!codeStarted && /code\.py output:|code\.py \||speedduo-profile boot/.test(consoleTail)) codeStarted = true;
    if (waitText) {
      consoleLine += text;
      let end;
      while ((end = consoleLine.indexOf('\n')) >= 0) {
        if (consoleLine.slice(0, end).includes(waitText)) waitSeen++;
        consoleLine = consoleLine.slice(end + 1);
      }
    }
  };
  host.onData = (bytes) => {
    fs.writeSync(dataFd, bytes);
    codeStarted = true; // the board program writes the data port: boot is over
    dataTail += Buffer.from(bytes).toString('latin1');
    let nl;
    while ((nl = dataTail.indexOf('\n')) >= 0) {
      if (dataTail.slice(0, nl).startsWith('{"ev":"match",')) matchStarts++;
      if (dataTail.slice(0, nl).startsWith('{"ev":"match_end"')) {
        matchEnds++;
        lastMatchEndUs = nowUs();
      }
      dataTail = dataTail.slice(nl + 1);
    }
  };

  // ---- run ----
  const core = mcu.core;
  core.PC = FLASH_BASE;
  const limitNs = config.limit_us * 1000;
  const minNs = (config.min_us || 0) * 1000;
  const settleNs = (config.settle_us ?? 300000) * 1000;
  let reason = 'limit';
  const waitUs = []; // per 100 ms of emulated time: µs the core waited for an interrupt
  let progressAt = Date.now();
  const waitingFor = () => {
    if (config.matches && matchEnds < config.matches && matchStarts > matchEnds) return 'match';
    if (!codeStarted) return 'boot';
    if (!config.matches) return 'limit';
    if (matchEnds < config.matches) return 'menu';
    if (waitSeen < waitCount) return 'stats';
    return 'settle';
  };
  for (;;) {
    for (let i = 0; i < 200000; i++) {
      if (pio.running && (i & 63) === 0) pio.catchUp();
      if (core.waiting) {
        const d = clock.nanosToNextAlarm;
        // a running state machine may raise an interrupt: wait in short steps then
        const step = d > 0 ? (pio.running ? Math.min(d, PIO_WAIT_NS) : d) : CYCLE_NS;
        const bucket = Math.floor(clock.nanos / 1e8);
        waitUs[bucket] = (waitUs[bucket] || 0) + step / 1000;
        clock.tick(step);
      } else {
        clock.tick(core.executeInstruction() * CYCLE_NS);
      }
    }
    const t = clock.nanos;
    if (config.progress && Date.now() - progressAt >= 500) {
      progressAt = Date.now();
      const line = {
        t_us: Math.round(t / 1000),
        wall_s: (progressAt - wallStart) / 1000,
        waiting: waitingFor(),
        match: Math.min(matchEnds + 1, config.matches || 0),
        matches: config.matches || 0,
      };
      fs.writeSync(2, JSON.stringify(line) + '\n');
    }
    if (t >= limitNs) break;
    if (consoleTail.includes('Code done running')) {
      reason = 'code_done';
      break;
    }
    if (
      config.matches &&
      matchEnds >= config.matches &&
      waitSeen >= waitCount &&
      t >= minNs &&
      t >= lastMatchEndUs * 1000 + settleNs
    ) {
      reason = 'matches';
      break;
    }
  }
  fs.closeSync(consoleFd);
  fs.closeSync(dataFd);
  if (config.data_send) {
    const sent = host.sentPackets.map((p) => JSON.stringify(p)).join('\n');
    fs.writeFileSync(path.join(config.out, 'host_sent.jsonl'), sent + (sent ? '\n' : ''));
  }
  for (const bus of buses) bus.close();
  if (config.probe_scans) fs.writeFileSync(path.join(config.out, 'scans.txt'), scanReads.join('\n') + '\n');
  const waits = [];
  for (let b = 0; b < waitUs.length; b++) waits.push(`${b * 100} ${Math.round(waitUs[b] || 0)}`);
  fs.writeFileSync(path.join(config.out, 'cpu_wait.txt'), waits.join('\n') + (waits.length ? '\n' : ''));
  fs.writeFileSync(path.join(config.out, 'led.txt'), ledEdges.join('\n') + (ledEdges.length ? '\n' : ''));
  if (config.pwm_slice !== undefined) {
    fs.writeFileSync(path.join(config.out, 'pwm.txt'), pwmWrites.join('\n') + (pwmWrites.length ? '\n' : ''));
  }
  const result = {
    reason,
    end_us: Math.round(nowUs()),
    wall_s: (Date.now() - wallStart) / 1000,
    match_ends: matchEnds,
    usb: host.state,
    data_port_open: host.dataOpened,
    host_bytes_sent: host.sentBytes,
    host_bytes_unsent: host.unsentBytes(),
  };
  if (flashWriter) {
    flashWriter.close();
    result.flash_io = flashWriter.io;
  }
  fs.writeFileSync(path.join(config.out, 'result.json'), JSON.stringify(result) + '\n');
}

// The PIO blocks on emulated time. rp2040js 1.4.1 runs a PIO block's state machines from
// host setTimeout()s once one is enabled (1,000 steps at a time, whatever the emulated time),
// ignores the clock divider and [delay] cycles, and keeps a joined RX FIFO 4 words deep; a
// synchronous run loop never lets the timers fire, and a state machine still enabled at the
// end keeps Node from exiting. Here the timers are never started: each enabled state machine
// executes one instruction per clock-divider period (CLKDIV int + frac/256, times 8 ns) of
// emulated time, and waits its instruction's [delay] cycles after it. The blocks catch up to
// the emulated time (`catchUp`) before every read or write of their registers, before every
// GPIO change the harness makes and every 64 CPU steps (the run loop); nothing is done while
// no state machine is enabled. SHIFTCTRL's FJOIN_RX / FJOIN_TX give the joined FIFO the
// chip's 8 words (the other one none).
function attachPioClock(mcu, clock) {
  const FJOIN_TX = 1 << 30;
  const FJOIN_RX = 1 << 31;
  const CTRL = 0x000;
  const SM0_SHIFTCTRL = 0x0d0;
  const SM_STRIDE = 0x18;
  const blocks = mcu.pio;
  const state = { running: false, catchUp };
  const nextNs = blocks.map(() => [0, 0, 0, 0]); // when each state machine's next cycle falls
  function periodNs(sm) {
    const div = (sm.clockDivInt || 0x10000) + sm.clockDivFrac / 256;
    return div * CYCLE_NS;
  }
  function catchUp() {
    if (!state.running) return;
    const now = clock.nanos;
    for (let b = 0; b < blocks.length; b++) {
      const block = blocks[b];
      let stepped = false;
      for (let m = 0; m < 4; m++) {
        const sm = block.machines[m];
        if (!sm.enabled) continue;
        const period = periodNs(sm);
        let next = nextNs[b][m];
        while (next <= now) {
          const before = sm.cycles;
          sm.step();
          next += Math.max(1, sm.cycles - before) * period; // the instruction, then its delay
          stepped = true;
        }
        nextNs[b][m] = next;
      }
      if (stepped) block.checkChangedPins();
    }
  }
  function setRunning() {
    state.running = blocks.some((block) => block.machines.some((sm) => sm.enabled));
  }
  const resize = (fifo, words) => (fifo.size === words ? fifo : new fifo.constructor(words));
  blocks.forEach((block, b) => {
    block.run = () => {}; // no host timers: catchUp() steps the machines
    const read = block.readUint32.bind(block);
    block.readUint32 = (offset) => {
      catchUp();
      return read(offset);
    };
    const write = block.writeUint32.bind(block);
    block.writeUint32 = (offset, value) => {
      catchUp();
      const was = block.machines.map((sm) => sm.enabled);
      write(offset, value);
      if (offset === CTRL) {
        block.machines.forEach((sm, m) => {
          if (sm.enabled && !was[m]) nextNs[b][m] = clock.nanos; // starts with the next cycle
        });
        setRunning();
      }
      const m = (offset - SM0_SHIFTCTRL) / SM_STRIDE;
      if (Number.isInteger(m) && m >= 0 && m < 4) {
        const sm = block.machines[m];
        const joinRx = (value & FJOIN_RX) !== 0;
        const joinTx = (value & FJOIN_TX) !== 0;
        sm.rxFIFO = resize(sm.rxFIFO, joinRx ? 8 : joinTx ? 0 : 4);
        sm.txFIFO = resize(sm.txFIFO, joinTx ? 8 : joinRx ? 0 : 4);
      }
    };
  });
  return state;
}

// The flash chip behind the SSI, for writes. On plain rp2040js 1.4.1 a microcontroller.nvm
// write returns at once and changes nothing: IO_QSPI is an UnimplementedPeripheral whose
// registers read 0xFFFFFFFF, so the boot ROM's flash_was_aborted() (GPIO_QSPI_SD1_CTRL's
// INOVER bits) is true and its flash_range_erase / flash_range_program loops stop before
// sending a command; the SSI's RXFLR reads 0, so the ROM's flash_put_get would wait forever
// for received bytes once not aborted, and its DR0 ignores the command bytes anyway.
// Here: IO_QSPI keeps the values written to it (0 at reset); each byte written to DR0 brings
// one received byte (RXFLR counts them, up to the 16-entry FIFO); the chip select (the
// SS output override the ROM sets: 2 low, 3 high) frames each command, the DR0 bytes while
// it is low. Within the writable regions (the nvm sector; the CIRCUITPY drive only with
// `drive_writes`, else it stays read-only) WREN (06)
// then sector erase (20) sets 4 KB to FF, and page program (02) ANDs bytes into a 256-byte
// page, as a NOR flash does; the status register (05) reads busy (WIP) for the W25Q16JV's
// typical times (erase 45 ms, page 0.4 ms), so the firmware waits for the chip as on a board
// (interrupts off).
function attachFlashWriter(mcu, clock, nvm, regions, out) {
  const ERASE_NS = 45e6;
  const PAGE_NS = 0.4e6;
  if (nvm && nvm.load) mcu.flash.set(fs.readFileSync(nvm.load).subarray(0, nvm.size), nvm.offset);
  const ssi = mcu.peripherals[0x18000];
  const ioqspi = mcu.peripherals[0x40018];
  const writesFd = fs.openSync(path.join(out, 'nvm_writes.jsonl'), 'w');
  let selected = false;
  let bytes = [];
  let enabled = false; // WEL
  let busyUntil = 0;
  const regionOf = (a) => regions.find((r) => a >= r.offset && a < r.offset + r.size);
  const log = (entry) => fs.writeSync(writesFd, JSON.stringify(entry) + '\n');
  const command = () => {
    const cmd = bytes[0];
    const address = ((bytes[1] << 16) | (bytes[2] << 8) | bytes[3]) >>> 0;
    const t = Math.round(clock.nanos / 1000);
    if (cmd === 0x06) {
      enabled = true;
    } else if (cmd === 0x04) {
      enabled = false;
    } else if ((cmd === 0x20 || cmd === 0x02) && bytes.length >= 4) {
      const region = regionOf(address);
      const ok = enabled && region !== undefined;
      const where = region ? region.name : 'none';
      enabled = false;
      if (cmd === 0x20) {
        const base = address & ~0xfff;
        if (ok) {
          mcu.flash.fill(0xff, base, base + 4096);
          busyUntil = clock.nanos + ERASE_NS;
        }
        log({ t_us: t, op: 'erase', address: base, done: ok, region: where });
      } else {
        const data = bytes.slice(4);
        if (ok) {
          const page = address & ~0xff;
          data.forEach((value, i) => {
            mcu.flash[page + ((address + i) & 0xff)] &= value;
          });
          busyUntil = clock.nanos + PAGE_NS;
        }
        log({ t_us: t, op: 'program', address, bytes: data.length, done: ok, region: where });
      }
    }
  };
  // what the firmware did on the flash interface (result.json "flash_io"), to see why if a
  // write does not arrive: SS_CTRL values written, DR0 bytes, commands by first byte
  const io = { ss_values: {}, dr0_writes: 0, dr0_selected: 0, commands: {} };
  const ioRegs = new Map(); // IO_QSPI GPIO STATUS/CTRL registers (0x00-0x2c): as written
  const ioRead = ioqspi.readUint32.bind(ioqspi);
  ioqspi.readUint32 = (offset) => (offset < 0x30 ? ioRegs.get(offset) ?? 0 : ioRead(offset));
  const ioWrite = ioqspi.writeUint32.bind(ioqspi);
  ioqspi.writeUint32 = (offset, value) => {
    if (offset < 0x30 && offset & 4) ioRegs.set(offset, value >>> 0);
    if (offset === 0x0c) { // GPIO_QSPI_SS_CTRL: OUTOVER in bits 8-9
      const key = `0x${(value >>> 0).toString(16)}`;
      io.ss_values[key] = (io.ss_values[key] || 0) + 1;
      const low = ((value >>> 8) & 3) === 2;
      if (low && !selected) bytes = [];
      if (!low && selected && bytes.length) {
        const key = `0x${bytes[0].toString(16)}`;
        io.commands[key] = (io.commands[key] || 0) + 1;
        command();
      }
      selected = low;
    }
    ioWrite(offset, value);
  };
  let received = 0; // bytes in the SSI's RX FIFO: one for each byte sent
  const ssiWrite = ssi.writeUint32.bind(ssi);
  ssi.writeUint32 = (offset, value) => {
    if (offset === 0x60) {
      received = Math.min(16, received + 1);
      io.dr0_writes++;
      if (selected) {
        io.dr0_selected++;
        bytes.push(value & 0xff);
      }
    }
    ssiWrite(offset, value);
  };
  const ssiRead = ssi.readUint32.bind(ssi);
  ssi.readUint32 = (offset) => {
    if (offset === 0x24) return received; // RXFLR
    if (offset === 0x60) {
      if (received) received--;
      if (selected && bytes[0] === 0x05) return clock.nanos < busyUntil ? 1 : 0;
    }
    return ssiRead(offset);
  };
  return {
    io,
    close() {
      fs.closeSync(writesFd);
      if (nvm) fs.writeFileSync(path.join(out, 'nvm.bin'), mcu.flash.subarray(nvm.offset, nvm.offset + nvm.size));
      if (regions.some((r) => r.name === 'drive')) {
        fs.writeFileSync(path.join(out, 'drive.bin'), mcu.flash.subarray(CIRCUITPY_OFFSET, CIRCUITPY_OFFSET + CIRCUITPY_SIZE));
      }
    },
  };
}

function loadUF2(buffer, flash) {
  for (let off = 0; off + 512 <= buffer.length; off += 512) {
    const magic0 = buffer.readUInt32LE(off);
    const magic1 = buffer.readUInt32LE(off + 4);
    const magicEnd = buffer.readUInt32LE(off + 508);
    if (magic0 !== 0x0a324655 || magic1 !== 0x9e5d5157 || magicEnd !== 0x0ab16f30) {
      throw new Error(`not a UF2 block at offset ${off}`);
    }
    const flags = buffer.readUInt32LE(off + 8);
    if (flags & 1) continue; // "not main flash"
    const address = buffer.readUInt32LE(off + 12);
    const size = buffer.readUInt32LE(off + 16);
    flash.set(buffer.subarray(off + 32, off + 32 + size), address - FLASH_BASE);
  }
}

// One SSD1306 on one RP2040 I2C controller. Each start, address byte, data byte and stop
// completes after its bus time (1, 9, 9 and 1 SCL periods, period from the controller's own
// SCL high+low counts), so the CPU waits as it would on a real bus.
function attachPanel(mcu, clock, index, panel, out, pio) {
  const i2c = mcu.i2c[index];
  const present = (t) =>
    panel.mode === 'present' || panel.mode === 'nack' || (panel.mode === 'absent_until' && t >= panel.until_us * 1000);
  const acks = (t) => panel.mode === 'present' || (panel.mode === 'absent_until' && t >= panel.until_us * 1000);
  // pull-ups live on the panel module: a missing panel leaves SDA/SCL low
  const setLines = (high) => {
    pio.catchUp();
    mcu.gpio[panel.sda].setInputValue(high);
    mcu.gpio[panel.scl].setInputValue(high);
  };
  setLines(present(0));
  if (panel.mode === 'absent_until') {
    clock.createAlarm(() => setLines(true)).schedule(panel.until_us * 1000);
  }
  const fd = fs.openSync(path.join(out, `i2c${index}.jsonl`), 'w');
  let pending = null;
  const alarm = clock.createAlarm(() => {
    const fn = pending;
    pending = null;
    fn();
  });
  const bitNs = () => {
    const period = i2c.sclLowPeriod + i2c.sclHighPeriod;
    return Math.max(1, period) * CYCLE_NS; // clk_peri = clk_sys = 125 MHz
  };
  const later = (bits, fn) => {
    pending = fn;
    alarm.schedule(bits * bitNs());
  };
  let tx = null;
  const finish = () => {
    if (tx) {
      tx.t1 = clock.nanos / 1000;
      fs.writeSync(
        fd,
        JSON.stringify({
          t0: Math.round(tx.t0 * 1000) / 1000,
          t1: Math.round(tx.t1 * 1000) / 1000,
          addr: tx.addr,
          read: tx.read,
          ack: tx.ack,
          bit_ns: tx.bitNs,
          data: Buffer.from(tx.bytes).toString('hex'),
        }) + '\n',
      );
      tx = null;
    }
  };
  i2c.onStart = () => {
    if (!tx) tx = { t0: clock.nanos / 1000, addr: -1, read: false, ack: false, bitNs: bitNs(), bytes: [] };
    later(1, () => i2c.completeStart());
  };
  i2c.onConnect = (address, mode) => {
    const ack = address === panel.address && acks(clock.nanos);
    if (tx) {
      tx.addr = address;
      tx.read = mode === I2CMode.Read;
      tx.ack = ack;
    }
    later(9, () => {
      i2c.completeConnect(ack);
      // a real controller's TX FIFO is flushed by the abort and reads empty (TX_EMPTY);
      // rp2040js leaves that bit clear, so the SDK would wait out its timeout and report
      // ETIMEDOUT (116) where a board reports ENODEV (19)
      if (!ack) i2c.setInterrupts(1 << 4);
    });
  };
  i2c.onWriteByte = (value) => {
    if (tx) tx.bytes.push(value);
    later(9, () => i2c.completeWrite(true));
  };
  i2c.onReadByte = () => {
    later(9, () => i2c.completeRead(0x00)); // SSD1306 status: display on, not busy
  };
  i2c.onStop = () => {
    later(1, () => {
      i2c.completeStop();
      finish();
    });
  };
  return { close: () => { finish(); fs.closeSync(fd); } };
}

// The USB host side: enumerates CircuitPython, opens the console (first CDC interface) and,
// unless told not to, the data port (second), and collects what the board sends on each.
// Host-to-device: only the data port's bulk OUT endpoint is ever answered, and only with
// the bytes of `sends` ([[t_us, hex]]) once their time has come: an armed OUT endpoint with
// nothing to send stays pending, as a real host sends no OUT packet then (answering idle
// OUT transfers with empty packets would cost half the emulation speed).
class CDCHost {
  constructor(usb, dataPort, clock, sends = []) {
    this.usb = usb;
    this.clock = clock;
    this.dataPort = dataPort;
    this.state = 'off';
    this.descriptorSize = 0;
    this.descriptors = [];
    this.inEndpoints = new Map(); // IN endpoint number -> 'console' | 'data'
    this.dataInEndpoint = -1;
    this.dataOutEndpoint = -1;
    this.outArmed = 0; // bytes the board's armed data OUT transfer takes (0: not armed)
    this.sends = sends.map(([t, hex]) => [t, Buffer.from(hex, 'hex')]);
    this.due = Buffer.alloc(0); // bytes whose time has come, not yet taken by the board
    this.sentPackets = []; // {t_us, data}: each OUT packet handed to the board
    this.sentBytes = 0;
    this.sendAlarm = clock.createAlarm(() => this.sendDue());
    this.dataOpened = false;
    this.onConsole = null;
    this.onData = null;
    this.commInterfaces = [];
    usb.onUSBEnabled = () => usb.resetDevice();
    usb.onResetReceived = () => {
      this.state = 'address';
      usb.sendSetupPacket(setDeviceAddressPacket(1));
    };
    usb.onEndpointWrite = (endpoint, buffer) => this.endpointWrite(endpoint, buffer);
    usb.onEndpointRead = (endpoint, length) => {
      if (endpoint === this.dataOutEndpoint && endpoint > 0) {
        this.outArmed = length;
        this.pump();
      }
    };
    this.scheduleSend();
    if (dataPort.mode === 'stop') {
      // the host stops taking the data port's IN packets: they stay pending (NAK), as on a
      // real host whose program holds the port open and reads no more
      const original = usb.DPRAMUpdated.bind(usb);
      usb.DPRAMUpdated = (offset, value) => {
        if (
          this.dataInEndpoint > 0 &&
          offset === 0x80 + this.dataInEndpoint * 8 && // EPn IN buffer control
          value & 0x400 &&
          clock.nanos >= dataPort.stop_us * 1000
        ) {
          return;
        }
        original(offset, value);
      };
    }
  }

  endpointWrite(endpoint, buffer) {
    const usb = this.usb;
    if (endpoint === 0) {
      if (this.state === 'address' && buffer.length === 0) {
        this.state = 'config9';
        usb.sendSetupPacket(getDescriptorPacket(2, 9));
      } else if (this.state === 'config9' && buffer.length >= 4) {
        this.descriptorSize = buffer[2] | (buffer[3] << 8);
        this.descriptors = [];
        this.state = 'config';
        usb.sendSetupPacket(getDescriptorPacket(2, this.descriptorSize));
      } else if (this.state === 'config' && buffer.length > 0) {
        this.descriptors.push(...buffer);
        if (this.descriptors.length >= this.descriptorSize) {
          this.parseDescriptors();
          this.state = 'configure';
          usb.sendSetupPacket(setDeviceConfigurationPacket(1));
        }
      } else if (this.state === 'configure' && buffer.length === 0) {
        this.state = 'line0';
        this.lineState(this.commInterfaces[0] ?? 0);
      } else if (this.state === 'line0' && buffer.length === 0) {
        if (this.dataPort.mode !== 'never' && this.commInterfaces.length > 1) {
          this.state = 'line1';
          this.dataOpened = true;
          this.lineState(this.commInterfaces[1]);
        } else {
          this.state = 'ready';
        }
      } else if (this.state === 'line1' && buffer.length === 0) {
        this.state = 'ready';
        this.pump();
      }
      return;
    }
    const port = this.inEndpoints.get(endpoint);
    if (port === 'console') this.onConsole?.(buffer);
    else if (port === 'data') this.onData?.(buffer);
  }

  // ---- host to board: the data port's OUT endpoint ----

  scheduleSend() {
    if (this.sends.length) {
      this.sendAlarm.schedule(Math.max(0, this.sends[0][0] * 1000 - this.clock.nanos));
    }
  }

  sendDue() {
    while (this.sends.length && this.sends[0][0] * 1000 <= this.clock.nanos) {
      this.due = Buffer.concat([this.due, this.sends.shift()[1]]);
    }
    this.pump();
    this.scheduleSend();
  }

  // hand the board one packet (at most 64 bytes, at most what its transfer takes) when it
  // has an OUT transfer armed and bytes are due; it re-arms once it has room again
  pump() {
    if (!this.outArmed || !this.due.length || this.state !== 'ready' || !this.dataOpened) return;
    const size = Math.min(64, this.outArmed, this.due.length);
    const packet = Uint8Array.from(this.due.subarray(0, size));
    this.due = this.due.subarray(size);
    this.outArmed = 0;
    this.sentBytes += size;
    this.sentPackets.push({ t_us: Math.round(this.clock.nanos / 1000), data: Buffer.from(packet).toString('hex') });
    this.usb.endpointReadDone(this.dataOutEndpoint, packet);
  }

  unsentBytes() {
    return this.due.length + this.sends.reduce((n, [, bytes]) => n + bytes.length, 0);
  }

  lineState(interfaceNumber) {
    this.usb.sendSetupPacket(
      createSetupPacket({
        dataDirection: 0,
        type: 1,
        recipient: 1,
        bRequest: 0x22, // CDC SET_CONTROL_LINE_STATE
        wValue: 3, // DTR | RTS
        wIndex: interfaceNumber,
        wLength: 0,
      }),
    );
  }

  // CDC communication interfaces (class 2) in order, each followed by its data interface
  // (class 10) with one bulk IN endpoint: the first pair is the console, the second the data port.
  parseDescriptors() {
    const d = this.descriptors;
    let i = 0;
    let inData = false;
    const ports = ['console', 'data'];
    let dataCount = 0;
    while (i + 1 < d.length) {
      const len = d[i];
      const type = d[i + 1];
      if (len < 2) break;
      if (type === 4 && len >= 9) {
        const number = d[i + 2];
        const cls = d[i + 5];
        if (cls === 2) this.commInterfaces.push(number);
        inData = cls === 10 && d[i + 4] === 2;
        if (inData) dataCount++;
      } else if (type === 5 && len >= 7 && inData) {
        const address = d[i + 2];
        const bulk = (d[i + 3] & 3) === 2;
        if (bulk && address & 0x80 && dataCount <= 2) {
          const port = ports[dataCount - 1];
          this.inEndpoints.set(address & 0xf, port);
          if (port === 'data') this.dataInEndpoint = address & 0xf;
        } else if (bulk && !(address & 0x80) && dataCount === 2) {
          this.dataOutEndpoint = address & 0xf;
        }
      }
      i += len;
    }
  }
}

main();
