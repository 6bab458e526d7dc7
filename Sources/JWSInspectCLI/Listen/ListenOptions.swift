internal import AppStoreServerAPI
internal import FoundationEssentials
internal import JWSInspectCore

#if canImport(Glibc)
    internal import Glibc
#elseif canImport(Darwin)
    internal import Darwin
#endif

/// `jwsinspect listen`'s options: inspect's verification, revocation and app expectation
/// groups (each notification is verified exactly as inspect verifies a webhook body), the
/// output group, and the listener's own.
struct ListenOptions: SubcommandOptions {
    var inspect = InspectOptions()
    var address = ListenAddress(host: "127.0.0.1", port: 8080)
    /// The path notifications are posted to; any other is answered 404.
    var path = "/"
    /// `--log FILE`: where each authentic notification is stored once.
    var log: String?
    /// `--forward-to URL`: the developer's own endpoint, given each stored notification.
    var forwardTo: String?
    var tlsCertificate: String?
    var tlsKey: String?
    /// `--import FILE`: notifications (fetch notifications --save, webhook bodies) appended to
    /// the log through the same exactly-once rule, without serving.
    var imports: [String] = []
    var showHelp = false
    var showVersion = false

    static let group = "Listening"

    /// inspect's groups listen takes: the trust and revocation checks, and the app expectations
    /// (a notification that fails one is authentic: stored and flagged).
    private static let inspectGroups: [OptionSpec<InspectOptions>] =
        InspectOptions.trust + InspectOptions.revocationChecks + InspectOptions.appExpectations

    private static let outputGroup: [OptionSpec<InspectOptions>] =
        OutputOptions.specs(
            \.output, taking: [.format, .quiet, .timeZone, .color], group: InspectOptions.output,
            help: [
                .format:
                    "Readable lines as each notification arrives (the default); one pretty JSON object per record; "
                    + "or one compact JSON object per line (delivery, forward and listenSummary records).",
                .quiet: "Print nothing on standard output but the summary; the log and the answers are unchanged.",
            ])

    private static let ownOptions: [OptionSpec<ListenOptions>] = [
        OptionSpec(
            ["--listen"], .value("ADDR:PORT"), group: group,
            help: "Where to receive: a numeric IPv4 or [IPv6] address and a port, or a port alone (on 127.0.0.1). "
                + "The default, 127.0.0.1:8080, takes connections from this machine only (a tunnel or a reverse "
                + "proxy); any other address is exposed to its network. Port 0: one the system chooses, shown at start."
        ) { options, value throws(UsageError) in
            options.address = try parseAddress(value)
        },
        OptionSpec(
            ["--path"], .value("/PATH"), group: group,
            help: "The path App Store Connect's URL names (default /); a request to any other is answered 404."
        ) { options, value throws(UsageError) in
            guard value.hasPrefix("/"), value.utf8.count <= 1024,
                !value.utf8.contains(where: { $0 < 0x21 || $0 > 0x7E })
            else {
                throw UsageError(
                    "--path must be a URL path starting with /, such as /apple/notifications, not "
                        + "'\(Excerpt.of(value))'")
            }
            options.path = value
        },
        OptionSpec(
            ["--log"], .value("FILE"), group: group,
            help: "Store each authentic notification once in FILE (JSON lines: the body as it came and what was "
                + "decided), synced to the disk before Apple is answered 200; a notificationUUID stored already is "
                + "answered 200 and not stored again, across restarts. Without it, nothing is stored.",
            completes: .files
        ) { options, value in options.log = value },
        OptionSpec(
            ["--forward-to"], .value("URL"), group: group,
            help: "Post each stored notification, its body unchanged, to this http(s) URL (your own endpoint), "
                + "retrying with backoff until it answers 2xx; what was forwarded is recorded in the log, so a "
                + "restart resumes. Needs --log."
        ) { options, value throws(UsageError) in
            guard let url = URL(string: value), let scheme = url.scheme?.lowercased(),
                scheme == "http" || scheme == "https", let host = url.host, !host.isEmpty
            else {
                throw UsageError("--forward-to must be an http:// or https:// URL, not '\(Excerpt.of(value))'")
            }
            options.forwardTo = value
        },
        OptionSpec(
            ["--tls-cert"], .value("FILE"), group: group,
            help: "Serve HTTPS with this certificate (PEM, with its chain); needs --tls-key.", completes: .files
        ) { options, value in options.tlsCertificate = value },
        OptionSpec(
            ["--tls-key"], .value("FILE"), group: group,
            help: "The certificate's private key (PEM).", completes: .files
        ) { options, value in options.tlsKey = value },
        OptionSpec(
            ["--import"], .value("FILE"), group: group,
            help: "Do not serve: append the notifications FILE holds (fetch notifications --save answers, webhook "
                + "bodies) to --log, each verified and stored once as if posted (repeatable); a backfill.",
            completes: .files
        ) { options, value in options.imports.append(value) },
    ]

    static let table: [OptionSpec<ListenOptions>] =
        inspectGroups.map { $0.lifted(\.inspect) } + ownOptions + outputGroup.map { $0.lifted(\.inspect) }
        + StandardOptions.specs(group: InspectOptions.output)

    static func parse(_ arguments: [String]) throws(UsageError) -> ListenOptions {
        let (parsed, inputs) = try ArgumentParser.parse(arguments, options: table, into: ListenOptions())
        var options = parsed
        if let first = inputs.first {
            throw UsageError(
                "listen takes no input ('\(Excerpt.of(first))'): notifications arrive by HTTP, or from --import FILE")
        }
        try options.inspect.checkOutput()
        if options.showHelp || options.showVersion { return options }
        if (options.tlsCertificate == nil) != (options.tlsKey == nil) {
            throw UsageError("--tls-cert and --tls-key go together: give both, or neither")
        }
        if options.forwardTo != nil, options.log == nil {
            throw UsageError("--forward-to needs --log: what is forwarded is resumed from the log after a restart")
        }
        if !options.imports.isEmpty {
            guard options.log != nil else {
                throw UsageError("--import needs --log: the log the notifications are appended to")
            }
            if options.forwardTo != nil || options.tlsCertificate != nil {
                throw UsageError("--import only appends to the log: --forward-to and --tls-cert belong to a listener")
            }
        }
        options.inspect.output.brief = true
        return options
    }

    /// `HOST:PORT`, `[IPV6]:PORT` or `PORT`: a numeric address, a port from 0 to 65535.
    static func parseAddress(_ value: String) throws(UsageError) -> ListenAddress {
        let wrong = UsageError(
            "--listen takes ADDR:PORT with a numeric address (127.0.0.1:8080, [::1]:8080, 0.0.0.0:8080) or a port, "
                + "not '\(Excerpt.of(value))'")
        var host = "127.0.0.1"
        var portText = Substring(value)
        if value.hasPrefix("[") {
            guard let close = value.firstIndex(of: "]"), value[value.index(after: close)...].hasPrefix(":") else {
                throw wrong
            }
            host = String(value[value.index(after: value.startIndex)..<close])
            portText = value[value.index(close, offsetBy: 2)...]
        } else if let colon = value.lastIndex(of: ":") {
            host = String(value[..<colon])
            portText = value[value.index(after: colon)...]
        }
        guard !portText.isEmpty, portText.utf8.count <= 5, portText.allSatisfy({ $0.isASCII && $0.isNumber }),
            let port = Int(portText), port <= 65535
        else { throw wrong }
        var address = in6_addr()
        let numeric =
            host.contains(":") ? inet_pton(AF_INET6, host, &address) == 1 : inet_pton(AF_INET, host, &address) == 1
        guard numeric else { throw wrong }
        return ListenAddress(host: host, port: UInt16(port))
    }
}
