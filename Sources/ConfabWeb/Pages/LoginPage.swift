import Hummingbird

/// The page a browser that is not signed in gets: how to sign in, and where a password is
/// set, the form that takes it. Static text and no script, so nothing of the app's data and
/// nothing that runs.
enum LoginPage {
    static func response(status: HTTPResponse.Status, passwordLogin: Bool, failed: Bool) -> Response {
        var body = """
            <h1>Confab</h1>
            <p>This browser is not signed in to Confab. In a terminal on this machine, run
            <code>confab open</code>: it opens the app signed in, or prints a link to open.</p>

            """
        if failed { body += "<p role=\"alert\">That password is not the one set for this node.</p>\n" }
        if passwordLogin {
            body += """
                <form method="post" action="/login">
                <label>Password <input type="password" name="password" autocomplete="current-password" required \
                autofocus></label>
                <button type="submit">Sign in</button>
                </form>

                """
        }
        return StaticPage.response(status: status, title: "sign in", body: body)
    }
}
