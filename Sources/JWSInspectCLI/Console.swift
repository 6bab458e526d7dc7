#if canImport(Glibc)
internal import Glibc
#elseif canImport(Darwin)
internal import Darwin
#endif

/// Writes to standard output and standard error with plain `write(2)` calls, one per
/// rendered result, so the two streams interleave in the order things happened.
enum Console {
    static func out(_ text: String) {
        write(text, to: STDOUT_FILENO)
    }

    /// Writes text already formatted for standard error.
    static func write(error text: String) {
        write(text, to: STDERR_FILENO)
    }

    static var stdoutIsTerminal: Bool { isatty(STDOUT_FILENO) == 1 }

    static func environment(_ name: String) -> String? {
        getenv(name).map { String(cString: $0) }
    }

    private static func write(_ text: String, to descriptor: Int32) {
        var text = text
        text.withUTF8 { buffer in
            var offset = 0
            while offset < buffer.count {
                let written = Glibc.write(descriptor, buffer.baseAddress! + offset, buffer.count - offset)
                if written < 0 {
                    if errno == EINTR { continue }
                    return  // a closed pipe (e.g. `| head`): nothing more can be shown
                }
                offset += written
            }
        }
    }
}
