#if canImport(Glibc)
    internal import Glibc
#elseif canImport(Darwin)
    internal import Darwin
#endif

/// Pasting into a terminal: a terminal in its usual (canonical) mode keeps at most 4096
/// characters of a line and drops the rest, and an App Store JWS is often longer. While
/// standard input is read from a terminal, canonical mode is turned off, so a paste of any
/// length arrives whole; Ctrl-D (which the terminal no longer turns into an end of input)
/// is read as the end. The terminal's settings are restored at the end of input, at exit,
/// and when a signal (Ctrl-C) ends the process.
enum TerminalPaste {
    /// The end-of-transmission byte Ctrl-D sends when canonical mode is off.
    static let endOfTransmission: UInt8 = 0x04

    /// Turns canonical mode off on `descriptor` (echo and Ctrl-C stay as they were); false
    /// when it is not a terminal whose settings can be changed.
    static func begin(_ descriptor: Int32) -> Bool {
        var settings = termios()
        guard tcgetattr(descriptor, &settings) == 0 else { return false }
        savedSettings.pointee = settings
        savedDescriptor = descriptor
        for number in [SIGINT, SIGTERM, SIGHUP, SIGQUIT] {
            _ = signal(number, restoreAndRaise)
        }
        settings.c_lflag &= ~tcflag_t(ICANON)
        withUnsafeMutableBytes(of: &settings.c_cc) { bytes in
            bytes[Int(VMIN)] = 1
            bytes[Int(VTIME)] = 0
        }
        guard tcsetattr(descriptor, TCSANOW, &settings) == 0 else {
            savedDescriptor = -1
            return false
        }
        return true
    }

    /// Restores the terminal's settings, if they were changed.
    static func restore() {
        guard savedDescriptor >= 0 else { return }
        _ = tcsetattr(savedDescriptor, TCSANOW, savedSettings)
        savedDescriptor = -1
    }
}

// Read by the signal handler, so plain globals (written before the handler is installed). The
// settings live in memory of their own: copying a C struct into a Swift global of that type
// overflowed it under AddressSanitizer.
nonisolated(unsafe) private let savedSettings: UnsafeMutablePointer<termios> = {
    let settings = UnsafeMutablePointer<termios>.allocate(capacity: 1)
    settings.initialize(to: termios())
    return settings
}()
nonisolated(unsafe) private var savedDescriptor: Int32 = -1

/// Restores the terminal, then ends the process by the signal as it would have ended
/// (tcsetattr, signal and raise are async-signal-safe).
private func restoreAndRaise(_ number: Int32) {
    if savedDescriptor >= 0 { _ = tcsetattr(savedDescriptor, TCSANOW, savedSettings) }
    _ = signal(number, SIG_DFL)
    _ = raise(number)
}
