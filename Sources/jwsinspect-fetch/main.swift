// `jwsinspect-fetch`: `jwsinspect fetch` and `jwsinspect listen`, the one program of
// jwsinspect's that links network libraries. `jwsinspect fetch ARGUMENTS` runs it in its place
// as `jwsinspect-fetch ARGUMENTS`. Listen is built where libmicrohttpd is (Package.swift).
import AppStoreServerHTTP
import JWSInspectCLI

#if JWSINSPECT_LISTEN
    import ListenHTTP

    Command.main(fetchingWith: URLSessionTransport(), serving: MicroHTTPDServer())
#else
    Command.main(fetchingWith: URLSessionTransport(), serving: nil)
#endif
