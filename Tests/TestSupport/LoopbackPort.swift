internal import Foundation

#if canImport(Glibc)
    internal import Glibc
#endif

/// Loopback ports that never answer: one that accepts connections and reads nothing (a
/// responder that hangs), and one that refuses them (a responder that is down). Each holds its
/// port until it is released, so no other process takes it meanwhile.
package final class LoopbackPort: Sendable {
    package let port: Int
    private let socket: Int32

    package var url: String { "http://127.0.0.1:\(port)/" }

    /// A port that accepts connections (the kernel completes them) and never answers.
    package static func hanging() -> LoopbackPort { LoopbackPort(listening: true) }
    /// A port that accepts each connection and resets it at once (SO_LINGER 0): a responder
    /// that hangs up.
    package static func resetting() -> LoopbackPort {
        let port = LoopbackPort(listening: true)
        let socket = port.socket
        Thread.detachNewThread {
            while true {
                let connection = accept(socket, nil, nil)
                guard connection >= 0 else { return }
                var linger = Glibc.linger(l_onoff: 1, l_linger: 0)
                _ = setsockopt(connection, SOL_SOCKET, SO_LINGER, &linger, socklen_t(MemoryLayout<Glibc.linger>.size))
                close(connection)
            }
        }
        return port
    }

    /// A loopback port no one listens on now (bound, read and released: a responder told to
    /// listen there is very likely to get it).
    package static func freePort() -> Int { LoopbackPort(listening: false).port }

    /// A port bound but not listening: connections are refused.
    package static func refusing() -> LoopbackPort { LoopbackPort(listening: false) }

    private init(listening: Bool) {
        let descriptor = Glibc.socket(AF_INET, Int32(SOCK_STREAM.rawValue), 0)
        precondition(descriptor >= 0, "socket: \(errno)")
        var address = sockaddr_in()
        address.sin_family = sa_family_t(AF_INET)
        address.sin_addr.s_addr = inet_addr("127.0.0.1")
        address.sin_port = 0
        var length = socklen_t(MemoryLayout<sockaddr_in>.size)
        let bound = withUnsafePointer(to: &address) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { bind(descriptor, $0, length) }
        }
        precondition(bound == 0, "bind: \(errno)")
        if listening { precondition(listen(descriptor, 16) == 0, "listen: \(errno)") }
        _ = withUnsafeMutablePointer(to: &address) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { getsockname(descriptor, $0, &length) }
        }
        socket = descriptor
        port = Int(UInt16(bigEndian: address.sin_port))
    }

    deinit {
        shutdown(socket, Int32(SHUT_RDWR))
        close(socket)
    }
}
