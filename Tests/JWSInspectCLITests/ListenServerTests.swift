#if JWSINSPECT_LISTEN
    import AppStoreServerAPI
    import AppStoreServerHTTP
    import Foundation
    import JWSInspectCore
    import TestPKI
    import TestSupport
    import Testing

    /// `jwsinspect-fetch listen` as a process on a loopback port, the way Apple reaches it.
    final class RunningListener {
        let child: ChildProcess
        let port: Int
        let folder: URL

        static var companion: String { FetchCompanionTests.companion.path }

        /// Starts it on 127.0.0.1, a port the system chooses, in `folder`, and waits until it receives.
        init(_ arguments: [String], folder: URL? = nil, port: Int = 0) throws {
            let folder = try folder ?? CLI.temporaryDirectory()
            self.folder = folder
            child = try ChildProcess(
                Self.companion, ["listen", "--listen", "127.0.0.1:\(port)"] + ListenFixture.root + arguments,
                directory: folder, timeout: .seconds(900))
            let marker = Array("receiving App Store Server Notifications at http://127.0.0.1:".utf8)
            self.port = try child.waitForOutput(within: .seconds(120)) { _, stderr -> Int? in
                guard let start = stderr.firstRange(of: marker)?.upperBound else { return nil }
                let digits = stderr[start...].prefix { (0x30...0x39).contains($0) }
                return stderr[start...].count > digits.count ? Int(String(decoding: digits, as: UTF8.self)) : nil
            }
        }

        var url: String { "http://127.0.0.1:\(port)" }

        /// Posts `body` from this process (URLSession) and returns the status and the answer.
        func post(_ body: String, path: String = "/", method: String = "POST") -> (status: Int, body: String) {
            let request = HTTPRequest(
                method: method, url: url + path, headers: [("Content-Type", "application/json")], body: Array(body.utf8)
            )
            switch URLSessionTransport().send(request, timeout: 120) {
            case .success(let response): return (response.status, String(decoding: response.body, as: UTF8.self))
            case .failure(let error): return (0, error.description)
            }
        }

        /// SIGINT, then its end: how it ended and what it printed.
        func interrupt() throws -> ChildProcess.Result {
            kill(child.pid, SIGINT)
            return try child.finish()
        }

        /// Its peak memory, from /proc.
        var peakKiB: Int? {
            guard let status = try? String(contentsOfFile: "/proc/\(child.pid)/status", encoding: .utf8) else {
                return nil
            }
            return status.split(separator: "\n").first { $0.hasPrefix("VmHWM:") }
                .flatMap { Int($0.split(separator: " ").dropFirst().first ?? "") }
        }
    }

    /// curl, when installed (`make test` installs it as root).
    let curlPath: String? = ["/usr/bin/curl", "/usr/local/bin/curl"].first {
        FileManager.default.isExecutableFile(atPath: $0)
    }

    /// Posts each (file, query) with curl, `parallel` connections at once: each request's
    /// status (000 when none came) by its query number.
    func curlPosts(
        _ posts: [(body: URL, number: Int)], to url: String, parallel: Int, folder: URL
    ) throws -> (statuses: [Int: Int], child: ChildProcess) {
        let config = folder.appendingPathComponent("curl-\(UUID().uuidString).conf")
        var text = ""
        for (index, (body, number)) in posts.enumerated() {
            // `next` between requests, none after the last (curl would stop on an empty one).
            if index > 0 { text += "next\n" }
            text += "url = \"\(url)/?n=\(number)\"\ndata-binary = \"@\(body.path)\"\n"
            text += "header = \"Content-Type: application/json\"\noutput = \"/dev/null\"\n"
            text += "write-out = \"%{http_code} %{url}\\n\"\nmax-time = 300\n"
        }
        try Data(text.utf8).write(to: config)
        let child = try ChildProcess(
            curlPath ?? "curl", ["--silent", "--parallel", "--parallel-max", "\(parallel)", "--config", config.path],
            directory: folder, timeout: .seconds(900))
        return ([:], child)
    }

    /// The statuses a finished curl printed, by query number.
    func curlStatuses(_ result: ChildProcess.Result) -> [Int: Int] {
        var statuses: [Int: Int] = [:]
        for line in result.stdoutText.split(separator: "\n") {
            let parts = line.split(separator: " ")
            guard parts.count == 2, let status = Int(parts[0]), let range = parts[1].range(of: "?n="),
                let number = Int(parts[1][range.upperBound...])
            else { continue }
            statuses[number] = status
        }
        return statuses
    }

    /// `jwsinspect listen` receives over real HTTP on loopback: what each request gets, the log's
    /// exactly-once rule under 200 connections and across `kill -9`, forwarding with retries and
    /// resumption, a clean stop.
    @Suite(.timeLimit(.minutes(15)), .serialized) struct ListenServerTests {
        @Test func eachRequestGetsItsAnswerAndOnlyAuthenticNotificationsAreStored() throws {
            let listener = try RunningListener(["--log", "log.jsonl", "--format", "jsonl"])
            let body = ListenFixture.body(1)
            #expect(listener.post(body).status == 200)
            let repeated = listener.post(body)
            #expect(repeated.status == 200 && repeated.body.hasPrefix("repeated"), "\(repeated)")
            var forged = ListenFixture.token(2)
            forged.replaceSubrange(forged.index(forged.endIndex, offsetBy: -6)..., with: "AAAAAA")
            #expect(listener.post("{\"signedPayload\":\"\(forged)\"}").status == 403)
            #expect(listener.post("{\"hello\":1}").status == 400)
            let transaction = ListenFixture.chain.sign(payloadJSON: TestPayloads.transaction())
            #expect(listener.post("{\"signedPayload\":\"\(transaction)\"}").status == 422)
            #expect(listener.post(body, path: "/elsewhere").status == 404)
            #expect(listener.post("", method: "GET").status == 405)
            let oversized = String(repeating: " ", count: (1 << 20) + 1)
            #expect(listener.post(oversized).status == 413)
            // An expectation that fails is stored and flagged: 200, so that Apple stops retrying.
            let other = try RunningListener(
                ["--log", "other.jsonl", "--bundle-id", "com.other.app"], folder: listener.folder)
            #expect(other.post(ListenFixture.body(3)).status == 200)
            let otherEnd = try other.interrupt()
            #expect(otherEnd.status == 0, "\(otherEnd.stderrText)")
            let flagged = try ListenFixture.records(listener.folder.appendingPathComponent("other.jsonl"))
            #expect(flagged.count == 1 && flagged[0]["status"] as? String == "wrong-app")

            let end = try listener.interrupt()
            #expect(end.status == 0, "\(end.stderrText)")
            #expect(
                end.stderrText.contains(
                    #""received":8,"stored":1,"repeated":1,"shown":0,"rejected":6,"retry":0"#), "\(end.stderrText)")
            let outcomes = end.stdoutText.split(separator: "\n").compactMap {
                (try? JSONSerialization.jsonObject(with: Data($0.utf8)) as? [String: Any])?["httpStatus"] as? Int
            }
            #expect(outcomes == [200, 200, 403, 400, 422, 404, 405, 413], "\(outcomes)")
            let records = try ListenFixture.records(listener.folder.appendingPathComponent("log.jsonl"))
            #expect(records.count == 1 && records[0]["body"] as? String == body)
        }

        @Test func aSilentClientIsClosedByItsTimeout() throws {
            let listener = try RunningListener([])
            var address = sockaddr_in()
            address.sin_family = sa_family_t(AF_INET)
            address.sin_port = in_port_t(UInt16(listener.port).bigEndian)
            address.sin_addr.s_addr = inet_addr("127.0.0.1")
            let socket = Glibc.socket(AF_INET, Int32(SOCK_STREAM.rawValue), 0)
            defer { close(socket) }
            let connected = withUnsafePointer(to: &address) {
                $0.withMemoryRebound(to: sockaddr.self, capacity: 1) {
                    connect(socket, $0, socklen_t(MemoryLayout<sockaddr_in>.size))
                }
            }
            try #require(connected == 0)
            let head = "POST / HTTP/1.1\r\nHost: 127.0.0.1\r\nContent-Length: 100\r\n\r\n{\"signed"
            _ = head.withCString { send(socket, $0, strlen($0), 0) }
            // Then nothing: the listener closes it after its 10 seconds of silence.
            var timeout = timeval(tv_sec: 120, tv_usec: 0)
            setsockopt(socket, SOL_SOCKET, SO_RCVTIMEO, &timeout, socklen_t(MemoryLayout<timeval>.size))
            let started = Date()
            var buffer = [UInt8](repeating: 0, count: 4096)
            var received = 0
            while true {
                let count = recv(socket, &buffer, buffer.count, 0)
                if count <= 0 { break }
                received += count
            }
            let waited = Date().timeIntervalSince(started)
            #expect(waited >= 5 && waited < 110, "closed after \(waited) s")
            let end = try listener.interrupt()
            #expect(end.status == 0)
            #expect(end.stdoutText.contains("silent for 10 seconds"), "\(end.stdoutText)")
            #expect(end.stderrText.contains("1 rejected"), "\(end.stderrText)")
        }

        @Test(.enabled(if: curlPath != nil, "curl is not installed (make test installs it as root)"))
        func twoHundredConnectionsTenThousandPostsEachNotificationStoredOnce() throws {
            let listener = try RunningListener(["--log", "log.jsonl", "-q"])
            let distinct = 1000
            var files: [URL] = []
            for number in 0..<distinct {
                let file = listener.folder.appendingPathComponent("body-\(number).json")
                try Data(ListenFixture.body(number).utf8).write(to: file)
                files.append(file)
            }
            let posts = (0..<10_000).map { (body: files[$0 % distinct], number: $0) }
            let (_, curl) = try curlPosts(posts, to: listener.url, parallel: 200, folder: listener.folder)
            let statuses = curlStatuses(try curl.finish())
            #expect(statuses.count == 10_000 && statuses.values.allSatisfy { $0 == 200 }, "\(Set(statuses.values))")
            // Memory is bounded (not under a sanitizer, whose shadow memory and quarantine it is then).
            let peak = listener.peakKiB ?? 0
            if !MemoryPerRecordCLITests.underSanitizer {
                #expect(peak > 0 && peak < 400 * 1024, "peak RSS \(peak) KiB under 10,000 posts")
            }
            let end = try listener.interrupt()
            #expect(end.status == 0, "\(end.stderrText)")
            #expect(end.stderrText.contains("10000 received: 1000 stored, 9000 repeated"), "\(end.stderrText)")
            let records = try ListenFixture.records(listener.folder.appendingPathComponent("log.jsonl"))
            let uuids = records.compactMap { $0["notificationUUID"] as? String }
            #expect(uuids.count == distinct && Set(uuids) == Set((0..<distinct).map(ListenFixture.uuid)))
            // timeline folds the log.
            let folded = try CLI.run(
                ["timeline", "--format", "jsonl"] + ListenFixture.root
                    + [listener.folder.appendingPathComponent("log.jsonl").path])
            #expect(folded.status == 0 && folded.stdout.contains(#""itemsRead":1000"#), "\(folded.stdout.suffix(300))")
        }

        @Test(.enabled(if: curlPath != nil, "curl is not installed (make test installs it as root)"))
        func killedDuringALoadItLosesNothingAcknowledgedAndLeavesNoTornLine() throws {
            let folder = try CLI.temporaryDirectory()
            let log = folder.appendingPathComponent("log.jsonl")
            let count = 3000
            var posts: [(body: URL, number: Int)] = []
            for number in 0..<count {
                let file = folder.appendingPathComponent("body-\(number).json")
                try Data(ListenFixture.body(number).utf8).write(to: file)
                posts.append((file, number))
            }
            let first = try RunningListener(["--log", "log.jsonl", "-q"], folder: folder)
            let (_, curl) = try curlPosts(posts, to: first.url, parallel: 50, folder: folder)
            // Once a few hundred are stored, kill -9.
            let deadline = Date().addingTimeInterval(300)
            while Date() < deadline {
                let size = (try? FileManager.default.attributesOfItem(atPath: log.path)[.size] as? Int) ?? 0
                if size > 300 * 2000 { break }
                usleep(20_000)
            }
            first.child.end()
            let statuses = curlStatuses(try curl.finish())
            let acknowledged = Set(statuses.filter { $0.value == 200 }.map(\.key))
            #expect(!acknowledged.isEmpty && acknowledged.count < count, "\(acknowledged.count) acknowledged")

            let second = try RunningListener(["--log", "log.jsonl", "-q"], folder: folder)
            var stored = Set(try ListenFixture.records(log).compactMap { $0["notificationUUID"] as? String })
            for number in acknowledged {
                #expect(stored.contains(ListenFixture.uuid(number)), "acknowledged \(number) is not in the log")
            }
            let again = posts.filter { !acknowledged.contains($0.number) }
            let (_, resend) = try curlPosts(again, to: second.url, parallel: 50, folder: folder)
            let resent = curlStatuses(try resend.finish())
            #expect(resent.count == again.count && resent.values.allSatisfy { $0 == 200 }, "\(Set(resent.values))")
            let end = try second.interrupt()
            #expect(end.status == 0, "\(end.stderrText)")
            let records = try ListenFixture.records(log)
            stored = Set(records.compactMap { $0["notificationUUID"] as? String })
            #expect(records.count == count && stored == Set((0..<count).map(ListenFixture.uuid)), "\(records.count)")
        }

        @Test func forwardingRetriesUntilTheEndpointAnswersAndResumesAfterARestart() throws {
            let folder = try CLI.temporaryDirectory()
            // A port nothing listens on yet: the endpoint comes later.
            let probe = try RunningListener([], folder: folder)
            let endpointPort = probe.port
            _ = try probe.interrupt()
            let arguments = [
                "--log", "log.jsonl", "--format", "jsonl", "--forward-to", "http://127.0.0.1:\(endpointPort)/",
            ]
            let first = try RunningListener(arguments, folder: folder)
            let bodies = (0..<3).map { ListenFixture.body($0) }
            for body in bodies { #expect(first.post(body).status == 200) }
            usleep(1_500_000)
            let stopped = try first.interrupt()
            #expect(stopped.status == 0)
            #expect(stopped.stdoutText.contains(#""record":"forward""#), "a failed attempt is shown")
            #expect(
                stopped.stderrText.contains(#""forwarded":0"#) && stopped.stderrText.contains(#""forwardPending":3"#),
                "\(stopped.stderrText)")
            // The endpoint: another listener, without a log, on that port.
            let endpoint = try RunningListener(["--format", "jsonl"], folder: folder, port: endpointPort)
            let second = try RunningListener(arguments, folder: folder)
            let deadline = Date().addingTimeInterval(120)
            while Date() < deadline {
                let forwarded = try ListenFixture.records(folder.appendingPathComponent("log.jsonl")).filter {
                    $0["record"] as? String == "forwarded"
                }
                if forwarded.count == 3 { break }
                usleep(100_000)
            }
            let end = try second.interrupt()
            #expect(end.stderrText.contains(#""forwarded":3"#), "\(end.stderrText)")
            let received = try endpoint.interrupt()
            #expect(received.stderrText.contains(#""received":3"#), "\(received.stderrText)")
            // The bodies arrived unchanged: each verified as the same notification.
            for number in 0..<3 { #expect(received.stdoutText.contains(ListenFixture.uuid(number))) }
            let records = try ListenFixture.records(folder.appendingPathComponent("log.jsonl"))
            #expect(records.filter { $0["record"] as? String == "stored" }.count == 3)
            #expect(records.filter { $0["record"] as? String == "forwarded" }.count == 3)
            // A third start has nothing left to forward.
            let third = try RunningListener(arguments, folder: folder)
            let last = try third.interrupt()
            #expect(last.stderrText.contains(#""forwarded":0"#) && last.stderrText.contains(#""forwardPending":0"#))
        }

        @Test func aSecondListenerOnTheSameLogIsRefused() throws {
            let folder = try CLI.temporaryDirectory()
            let first = try RunningListener(["--log", "log.jsonl"], folder: folder)
            let second = try ChildProcess.run(
                RunningListener.companion, ["listen", "--listen", "127.0.0.1:0", "--log", "log.jsonl"],
                directory: folder, timeout: .seconds(120))
            #expect(
                second.status == 74 && second.stderrText.contains("another jwsinspect listen"), "\(second.stderrText)")
            let busy = try ChildProcess.run(
                RunningListener.companion, ["listen", "--listen", "127.0.0.1:\(first.port)"], directory: folder,
                timeout: .seconds(120))
            #expect(busy.status == 69, "\(busy.stderrText)")
            #expect(try first.interrupt().status == 0)
        }
    }
#else
    import Testing

    /// Without libmicrohttpd's development files, jwsinspect-fetch is built without listen's
    /// server (make says so), and these tests say why they do not run.
    @Suite struct ListenServerTests {
        @Test(.disabled("built without libmicrohttpd (libmicrohttpd-dev missing; make test installs it as root)"))
        func listenIsServed() {}
    }
#endif
