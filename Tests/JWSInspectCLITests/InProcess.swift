import AppStoreServerAPI
import AppStoreServerHTTP
import Foundation
import JWSInspectCore

@testable import JWSInspectCLI

/// Runs the whole command in this process, with standard input, output and the environment
/// in memory: what the executable would print, without launching it.
enum InProcess {
    struct Result {
        var status: Int32 = 0
        var stdout = ""
        var stderr = ""
    }

    /// The moment the in-process runs take as now (2025-06-01T00:00:00Z).
    static let now = Date(timeIntervalSince1970: 1_748_736_000)

    /// - Parameters:
    ///   - stdin: standard input's text (nil: standard input is closed).
    ///   - environment: the variables the run sees.
    ///   - failWritesWith: an error number every write to standard output fails with.
    ///   - transport: what sends fetch's requests (as jwsinspect-fetch's; nil: as jwsinspect's, none).
    ///   - server: what listen receives with (as a jwsinspect-fetch built with libmicrohttpd's; nil: none).
    static func run(
        _ arguments: [String], stdin: String? = "", environment: [String: String] = [:], stdoutIsTerminal: Bool = false,
        stderrIsTerminal: Bool = false, failWritesWith failure: Int32? = nil,
        transport: (any HTTPTransport)? = URLSessionTransport(), server: (any NotificationServer)? = nil
    ) -> Result {
        var result = Result()
        var remaining: [UInt8]? = stdin.map { Array($0.utf8) }
        let reader: JWSInspectCore.InputStream.Reader? =
            stdin == nil
            ? nil
            : { buffer in
                guard let bytes = remaining else { return (0, nil) }
                remaining = nil
                buffer.append(contentsOf: bytes)
                return (bytes.count, nil)
            }
        // listen writes from several threads (the server's, the forwarder's): one at a time.
        let writing = NSLock()
        var io = CommandIO(
            standardInput: reader, now: now,
            writeOut: { text in
                if let failure { return failure }
                writing.withLock { result.stdout += text }
                return nil
            },
            writeError: { text in writing.withLock { result.stderr += text } })
        io.environment = { environment[$0] }
        io.stdoutIsTerminal = stdoutIsTerminal
        io.stderrIsTerminal = stderrIsTerminal
        io.transport = transport
        io.server = server
        result.status = Command.run(arguments, io: io)
        return result
    }
}
