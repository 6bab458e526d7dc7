internal import COpenSSL

/// Internal helpers for calling OpenSSL from the test PKI.
///
/// Every OpenSSL call made by this module works on inputs the module itself
/// controls, so a failure is a programming error (or a broken OpenSSL
/// installation), never a condition a test should handle. These helpers turn
/// such failures into a `preconditionFailure` that carries the OpenSSL error
/// queue, so the cause is visible in the test log.
enum OpenSSL {
    /// Stops the process with `what` and the drained OpenSSL error queue.
    static func fail(_ what: String, file: StaticString = #file, line: UInt = #line) -> Never {
        preconditionFailure("TestPKI: \(what) failed\(errorQueueDescription())", file: file, line: line)
    }

    /// The value `body` returns; a thrown error (from `AppStoreTestData` or the core) stops the
    /// process with its message: fixtures make their own inputs, so it is a programming error.
    static func must<T, E: Error>(
        file: StaticString = #file, line: UInt = #line, _ body: () throws(E) -> T
    ) -> T {
        do {
            return try body()
        } catch {
            preconditionFailure("TestPKI: \(error)", file: file, line: line)
        }
    }

    /// Requires an OpenSSL status code to be exactly 1 (OpenSSL's success value).
    static func check(_ status: Int32, _ what: String, file: StaticString = #file, line: UInt = #line) {
        if status != 1 {
            fail("\(what) (returned \(status))", file: file, line: line)
        }
    }

    /// Requires an OpenSSL constructor or getter to return a non-NULL pointer.
    static func unwrap<T>(_ pointer: T?, _ what: String, file: StaticString = #file, line: UInt = #line) -> T {
        guard let pointer else {
            fail("\(what) (returned NULL)", file: file, line: line)
        }
        return pointer
    }

    /// Serialises an object with an OpenSSL `i2d_*` function into a byte array.
    ///
    /// Uses the two-pass idiom: the first call with a NULL output pointer
    /// returns the length, the second writes into a buffer of that length.
    static func der(
        _ what: String,
        _ encode: (UnsafeMutablePointer<UnsafeMutablePointer<UInt8>?>?) -> Int32
    ) -> [UInt8] {
        let length = encode(nil)
        guard length > 0 else {
            fail("\(what) length query (returned \(length))")
        }
        var bytes = [UInt8](repeating: 0, count: Int(length))
        let written = bytes.withUnsafeMutableBufferPointer { buffer -> Int32 in
            var cursor: UnsafeMutablePointer<UInt8>? = buffer.baseAddress
            return encode(&cursor)
        }
        guard written == length else {
            fail("\(what) (wrote \(written) of \(length) bytes)")
        }
        return bytes
    }

    /// The OpenSSL error queue as `": reason; reason"`, or an empty string; drains the queue.
    private static func errorQueueDescription() -> String {
        var reasons: [String] = []
        while true {
            let code = ERR_get_error()
            if code == 0 { break }
            var buffer = [CChar](repeating: 0, count: 256)
            ERR_error_string_n(code, &buffer, buffer.count)
            let terminated = buffer.prefix { $0 != 0 }.map { UInt8(bitPattern: $0) }
            reasons.append(String(decoding: terminated, as: UTF8.self))
        }
        return reasons.isEmpty ? "" : ": " + reasons.joined(separator: "; ")
    }
}
