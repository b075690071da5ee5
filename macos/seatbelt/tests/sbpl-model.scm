;;; sbpl-model.scm — a small model of sandbox-exec and SBPL, to check a generated profile.
;;;
;;; SPDX-License-Identifier: LGPL-2.1-or-later
;;;
;;; Usage: guile sbpl-model.scm ARGV-FILE MODE ROOTS-FILE
;;;   ARGV-FILE   the argv handed to sandbox-exec, each item NUL-terminated
;;;   MODE        read-only | workspace-write
;;;   ROOTS-FILE  the writable roots as macOS spells them, each NUL-terminated and prefixed
;;;               with "+" when it holds a repository as the call is planned, "=" when it is
;;;               one itself (a bare repository: HEAD, objects, refs, no .git), "-" when not
;;;               (the decision table is derived from these, never from the profile's own
;;;               parameters)
;;;
;;; It parses the argv as sandbox-exec does (-p PROFILE, -DNAME=VALUE split at the first "=",
;;; "--"), reads the profile as S-expressions, evaluates it with its own definitions of version,
;;; allow, deny, the filters and param, and answers a decision table twice: with the first and
;;; with the last matching rule winning. Every decision must be the expected one under both.
;;; Anything it does not know fails the check: an unknown form, operation or filter, a
;;; parameter that is undefined (or defined and never used), a profile that does not read, and
;;; anything allowed beyond its inventory (an operation, a sysctl, a mach service).

(use-modules (ice-9 binary-ports)
             (ice-9 iconv)
             (ice-9 match)
             (ice-9 regex)
             (srfi srfi-1))

(define (fail fmt . args)
  (apply format (current-error-port) (string-append "sbpl-model: " fmt "~%") args)
  (exit 1))

;; Bytes become characters one to one, so that any path compares exactly.
(define (read-items file)
  (let* ((bytes (call-with-input-file file get-bytevector-all #:binary #t))
         (text (if (eof-object? bytes) "" (bytevector->string bytes "ISO-8859-1")))
         (items (string-split text #\nul)))
    (if (and (pair? items) (string-null? (last items)))
        (drop-right items 1)
        (fail "~a does not end with a NUL" file))))

;;; ---- sandbox-exec's command line ----

(define (parse-defines items)
  (let loop ((items items) (defines '()))
    (match items
      (("--" command ..1) (values (reverse defines) command))
      (((? (lambda (s) (string-prefix? "-D" s)) item) rest ...)
       (let ((eq (string-index item #\=)))
         (unless eq (fail "~s has no \"=\"" item))
         (let ((name (substring item 2 eq)))
           (when (string-null? name) (fail "~s has an empty name" item))
           (when (assoc name defines) (fail "parameter ~a is defined twice" name))
           (loop rest (acons name (substring item (+ eq 1)) defines)))))
      (_ (fail "after the -D parameters comes \"--\" and a non-empty command: ~s" items)))))

(define (parse-argv items)
  (match items
    (("/usr/bin/sandbox-exec" "-p" profile rest ...)
     (call-with-values (lambda () (parse-defines rest))
       (lambda (defines command) (values profile defines command))))
    (_ (fail "the argv does not start with /usr/bin/sandbox-exec -p PROFILE"))))

;;; ---- reading SBPL ----

;; #"..." is SBPL's regex literal; its backslashes belong to the regex.
(read-hash-extend #\"
  (lambda (chr port)
    (let loop ((chars '()))
      (let ((c (read-char port)))
        (cond ((eof-object? c) (fail "unterminated #\" literal"))
              ((char=? c #\") (list 'regex-literal (list->string (reverse chars))))
              (else (loop (cons c chars))))))))

(define (read-profile text)
  (catch #t
    (lambda ()
      (call-with-input-string text
        (lambda (port)
          (let loop ((forms '()))
            (let ((form (read port)))
              (if (eof-object? form) (reverse forms) (loop (cons form forms))))))))
    (lambda (key . args)
      (fail "the profile does not read: ~a ~s" key args))))

;;; ---- evaluating SBPL ----

;; The operations this model knows; a name outside it fails the check rather than being
;; guessed at.
(define known-operations
  '(default
    file* file-read* file-read-data file-read-metadata file-read-xattr
    file-write* file-write-create file-write-data file-write-flags file-write-mode
    file-write-owner file-write-setugid file-write-times file-write-unlink file-write-xattr
    file-ioctl file-link file-map-executable pseudo-tty
    process* process-exec process-fork process-info* process-info-pidinfo
    signal sysctl-read sysctl-write mach-lookup mach-register
    ipc-posix-shm-read-data ipc-posix-shm-write-data
    network* network-outbound network-inbound network-bind
    user-preference-read user-preference-write iokit-open))

(define (operation-covers? rule-op request-op)
  (let ((r (symbol->string rule-op)) (q (symbol->string request-op)))
    (or (string=? r q)
        (and (string-suffix? "*" r)
             (string-prefix? (string-drop-right r 1) q)))))

(define parameters '())
(define used-parameters '())

(define (eval-string expr)
  (match expr
    ((? string? s) s)
    (('param (? string? name))
     (let ((binding (assoc name parameters)))
       (unless binding (fail "parameter ~a is not defined" name))
       (set! used-parameters (lset-adjoin string=? used-parameters name))
       (cdr binding)))
    (('string-append parts ...) (apply string-append (map eval-string parts)))
    (_ (fail "not a string expression: ~s" expr))))

(define (path-beneath? path dir)
  (or (string=? path dir)
      (string-prefix? (if (string-suffix? "/" dir) dir (string-append dir "/")) path)))

(define (request-field request key) (assq-ref request key))

;; A filter becomes a predicate over a request (an alist of op, path, target, name).
(define (compile-filter filter)
  (define (on-path test)
    (lambda (request)
      (let ((path (request-field request 'path))) (and path (test path)))))
  (define (on-name test)
    (lambda (request)
      (let ((name (request-field request 'name))) (and name (test name)))))
  (match filter
    (('literal e) (let ((p (eval-string e))) (on-path (lambda (path) (string=? path p)))))
    (('subpath e) (let ((p (eval-string e))) (on-path (lambda (path) (path-beneath? path p)))))
    (('regex ('regex-literal r))
     (let ((rx (make-regexp r regexp/extended)))
       (on-path (lambda (path) (regexp-exec rx path)))))
    (('regex (? string? r))
     (let ((rx (make-regexp r regexp/extended)))
       (on-path (lambda (path) (regexp-exec rx path)))))
    (('require-any fs ...)
     (let ((ps (map compile-filter fs))) (lambda (q) (any (lambda (p) (p q)) ps))))
    (('require-all fs ..1)
     (let ((ps (map compile-filter fs))) (lambda (q) (every (lambda (p) (p q)) ps))))
    (('require-not f) (let ((p (compile-filter f))) (lambda (q) (not (p q)))))
    (('target 'same-sandbox)
     (lambda (q) (eq? (request-field q 'target) 'same-sandbox)))
    (('sysctl-name e) (let ((n (eval-string e))) (on-name (lambda (name) (string=? name n)))))
    (('sysctl-name-prefix e)
     (let ((n (eval-string e))) (on-name (lambda (name) (string-prefix? n name)))))
    (('global-name e) (let ((n (eval-string e))) (on-name (lambda (name) (string=? name n)))))
    (('ipc-posix-name e) (let ((n (eval-string e))) (on-name (lambda (name) (string=? name n)))))
    (_ (fail "unknown filter ~s" filter))))

;; What the profile allows, as (operations . filters), for the inventory check.
(define allowed '())

;; A rule: (action operations predicate), the predicate matching any of its filters.
(define (compile-rule action args)
  (let loop ((args args) (ops '()))
    (match args
      (((? symbol? op) rest ...)
       (unless (memq op known-operations) (fail "unknown operation ~a" op))
       (loop rest (cons op ops)))
      ((filters ...)
       (when (null? ops) (fail "(~a) names no operation" action))
       (when (and (memq 'default ops) (pair? filters)) (fail "default takes no filter"))
       (when (eq? action 'allow)
         (set! allowed (cons (cons (reverse ops) filters) allowed)))
       (let ((ps (map compile-filter filters)))
         (list action (reverse ops)
               (if (null? ps) (lambda (q) #t) (lambda (q) (any (lambda (p) (p q)) ps)))))))))

;; Returns (default-action . rules) for a profile's forms.
(define (evaluate-profile forms)
  (match forms
    ((('version 1) rest ...)
     (let loop ((forms rest) (default #f) (rules '()))
       (match forms
         (() (unless default (fail "the profile has no default"))
             (cons default (reverse rules)))
         ((((and action (or 'allow 'deny)) 'default) more ...)
          (when default (fail "the default is set twice"))
          (loop more action rules))
         ((((and action (or 'allow 'deny)) args ...) more ...)
          (loop more default (cons (compile-rule action args) rules)))
         ((form more ...) (fail "unknown form ~s" form)))))
    (_ (fail "the profile does not start with (version 1)"))))

(define (rule-matches? rule request)
  (match rule
    ((action ops predicate)
     (and (any (lambda (op) (operation-covers? op (request-field request 'op))) ops)
          (predicate request)))))

(define (decide profile request order)
  (let* ((rules (if (eq? order 'last) (reverse (cdr profile)) (cdr profile)))
         (hit (find (lambda (rule) (rule-matches? rule request)) rules)))
    (if hit (car hit) (car profile))))

;;; ---- nothing wider: what the profile may allow at all ----

;; Operations allowed without a filter, and those allowed only with one.
(define unfiltered-inventory
  '(process-exec process-fork file-read* file-map-executable pseudo-tty user-preference-read))
(define filtered-inventory
  '(signal process-info* file-write-data file-ioctl sysctl-read mach-lookup
    ipc-posix-shm-read-data file-write*))

;; The names bash, git, python3 and cc are allowed to reach while they start.
(define name-inventory
  (append
   (map (lambda (n) (list 'sysctl-name n))
        '("hw.activecpu" "hw.byteorder" "hw.cachelinesize" "hw.cpufamily" "hw.cpusubtype"
          "hw.cputype" "hw.l1dcachesize" "hw.l1icachesize" "hw.l2cachesize" "hw.l3cachesize"
          "hw.logicalcpu" "hw.logicalcpu_max" "hw.machine" "hw.memsize" "hw.model" "hw.ncpu"
          "hw.nperflevels" "hw.pagesize" "hw.pagesize_compat" "hw.physicalcpu"
          "hw.physicalcpu_max" "kern.argmax" "kern.hostname" "kern.maxfilesperproc"
          "kern.ngroups" "kern.osproductversion" "kern.osrelease" "kern.ostype"
          "kern.osvariant_status" "kern.osversion" "kern.secure_kernel" "kern.usrstack64"
          "kern.version" "sysctl.proc_cputype" "sysctl.proc_native" "sysctl.proc_translated"))
   (map (lambda (n) (list 'sysctl-name-prefix n)) '("hw.optional." "hw.perflevel" "machdep.cpu."))
   (map (lambda (n) (list 'global-name n))
        '("com.apple.bsd.dirhelper" "com.apple.cfprefsd.agent" "com.apple.cfprefsd.daemon"
          "com.apple.logd" "com.apple.system.logger" "com.apple.system.notification_center"
          "com.apple.system.opendirectoryd.libinfo"
          "com.apple.system.opendirectoryd.membership"))
   (list (list 'ipc-posix-name "apple.shm.notification_center"))))

(define (named-filters filter)
  (match filter
    (((or 'require-any 'require-all 'require-not) fs ...) (append-map named-filters fs))
    (((and kind (or 'sysctl-name 'sysctl-name-prefix 'global-name 'ipc-posix-name)) e)
     (list (list kind (eval-string e))))
    (_ '())))

(define (check-inventory)
  (for-each
   (lambda (rule)
     (let ((ops (car rule)) (filters (cdr rule)))
       (for-each
        (lambda (op)
          (unless (memq op (if (null? filters) unfiltered-inventory
                               (append unfiltered-inventory filtered-inventory)))
            (fail "the profile allows ~a~a, beyond the model's inventory" op
                  (if (null? filters) " without a filter" ""))))
        ops)
       (for-each
        (lambda (name)
          (unless (member name name-inventory)
            (fail "the profile allows ~s, beyond the model's inventory" name)))
        (append-map named-filters filters))))
   allowed))

;;; ---- the decision table ----

(define (file op path) `((op . ,op) (path . ,path)))
(define (named op name) `((op . ,op) (name . ,name)))
(define (targeted op target) `((op . ,op) (target . ,target)))

(define (always-table)
  (append
   (map (lambda (q) (cons q 'allow))
        (list (file 'file-read-data "/etc/passwd") (file 'file-read-metadata "/")
              (file 'file-read-data "/Users/someone/secret")
              (file 'process-exec "/bin/bash") `((op . process-fork))
              (file 'file-map-executable "/usr/lib/libz.1.dylib") `((op . pseudo-tty))
              (targeted 'signal 'same-sandbox) (targeted 'process-info-pidinfo 'same-sandbox)
              (file 'file-write-data "/dev/null") (file 'file-write-data "/dev/zero")
              (file 'file-write-data "/dev/tty") (file 'file-write-data "/dev/ttys003")
              (file 'file-ioctl "/dev/ttys003") (file 'file-write-data "/dev/ptmx")
              (file 'file-write-data "/dev/fd/1")
              (named 'sysctl-read "kern.osrelease") (named 'sysctl-read "hw.optional.arm64")
              (named 'sysctl-read "hw.ncpu")
              (named 'mach-lookup "com.apple.system.opendirectoryd.libinfo")))
   (map (lambda (q) (cons q 'deny))
        (list (targeted 'signal 'other) (targeted 'process-info-pidinfo 'other)
              (file 'file-write-data "/dev/disk0") (file 'file-write-data "/dev/ttysX")
              (file 'file-write-data "/dev/null/x") (file 'file-write-create "/dev/nullx")
              (file 'file-write-unlink "/dev/null") (file 'file-write-data "/dev/fd/1/x")
              (file 'file-write-data "/etc/hosts") (file 'file-write-data "/private/etc/hosts")
              (file 'file-write-create "/Users/someone/outside") (file 'file-write-mode "/")
              (file 'file-write-data "/usr/bin/git")
              (named 'sysctl-read "kern.proc.all") (named 'sysctl-write "kern.hostname")
              (named 'mach-lookup "com.apple.securityd") `((op . network-outbound))
              `((op . mach-register) (name . "x"))))))

(define (parent-of path)
  (let ((slash (string-rindex path #\/)))
    (if (or (not slash) (zero? slash)) "/" (substring path 0 slash))))

(define (root-table mode root kind guards?)
  (define repository? (and kind #t))
  (define (under . parts) (apply string-append root parts))
  (define (writable-in-mode) (if (string=? mode "workspace-write") 'allow 'deny))
  (let ((writable (list (file 'file-write-data (under "/x"))
                        (file 'file-write-create (under "/dir/new"))
                        (file 'file-write-unlink (under "/x"))
                        (file 'file-write-mode (under "/x"))
                        (file 'file-write-data (under "/.gitignore"))
                        (file 'file-write-data (under "/.git/index"))
                        (file 'file-write-create (under "/.git/objects/ab/cdef"))
                        (file 'file-write-data (under "/.git/refs/heads/main"))
                        (file 'file-write-data (under "/.git/config.lock"))
                        (file 'file-write-data (under "/.git/hooksx"))
                        (file 'file-write-data (under "/.github/hooks/x"))
                        (file 'file-write-data (under "/.GITHUB/x"))
                        (file 'file-write-data (under "/.Gitignore"))
                        (file 'file-write-data (under "/.git/HOOKSX"))
                        (file 'file-write-data (under "/.git/CONFIG.lock"))
                        (file 'file-write-data (under "/.git/commondir.lock"))
                        (file 'file-write-data (under "/.git/config.worktree.lock"))
                        (file 'file-write-data (under "/.git/config.worktreex"))
                        (file 'file-write-data (under "/sub/HOOKS/x"))
                        ;; git's own HEADs stay git's, and a HEAD deeper down is the project's.
                        (file 'file-write-data (under "/.git/HEAD"))
                        (file 'file-write-create (under "/.git/logs/HEAD"))
                        (file 'file-write-create (under "/.git/refs/remotes/origin/HEAD"))
                        ;; git's sequencer (cherry-pick and revert of a range) names one head.
                        (file 'file-write-create (under "/.git/sequencer/head"))
                        (file 'file-write-create (under "/sub/HEAD"))
                        (file 'file-write-create (under "/headers/x"))
                        (file 'file-write-create (under "/ahead"))
                        ;; Non-ASCII names (bytes as Latin-1 characters) elsewhere stay the
                        ;; project's: a branch named cafe with an acute e, a .cafe directory.
                        (file 'file-write-data (under "/.git/refs/heads/caf\xc3\xa9"))
                        (file 'file-write-create (under "/.caf\xc3\xa9/x"))
                        (file 'file-write-create (under "/caf\xc3\xa9.git/x"))
                        (file 'file-write-create (under "/sub/.git/config"))))
        ;; The repository's own paths: protected when the root holds one as the call is
        ;; planned (a hook planted, core.fsmonitor or an alias written, .git moved away and
        ;; replaced); otherwise what git init and git clone write in this call.
        (repository (list (file 'file-write-create (under "/.git"))
                          (file 'file-write-unlink (under "/.git"))
                          (file 'file-write-data (under "/.git"))
                          (file 'file-write-create (under "/.git/hooks"))
                          (file 'file-write-create (under "/.git/hooks/pre-commit"))
                          (file 'file-write-create (under "/.git/hooks/pre-commit.sample"))
                          (file 'file-write-data (under "/.git/hooks/pre-commit"))
                          (file 'file-write-unlink (under "/.git/hooks/pre-commit.sample"))
                          (file 'file-write-create (under "/.git/hooks/sub/x"))
                          (file 'file-write-data (under "/.git/config"))
                          (file 'file-write-create (under "/.git/config"))
                          (file 'file-write-unlink (under "/.git/config"))
                          (file 'file-write-xattr (under "/.git/config"))
                          ;; Files that make git read another config: commondir names a git
                          ;; directory of the command's making, config.worktree adds to config.
                          (file 'file-write-create (under "/.git/commondir"))
                          (file 'file-write-data (under "/.git/commondir"))
                          (file 'file-write-create (under "/.git/config.worktree"))
                          (file 'file-write-unlink (under "/.git/config.worktree"))
                          ;; A HEAD beside .git: once the command garbles .git/HEAD, git takes
                          ;; the work tree for a bare repository (HEAD, objects, refs beside
                          ;; .git) and runs what the command wrote to ROOT/config.
                          (file 'file-write-create (under "/HEAD"))
                          (file 'file-write-data (under "/HEAD"))))
        ;; Refused in every mode, repository or not: renaming the root away (its .git with
        ;; it), and another letter case of .git, hooks or config, which on a case-insensitive
        ;; volume is the protected path itself.
        (protected (list (file 'file-write-unlink root) (file 'file-write-mode root)
                         (file 'file-write-data (under "/.GIT/config"))
                         (file 'file-write-create (under "/.Git"))
                         (file 'file-write-create (under "/.giT/hooks/pre-commit"))
                         (file 'file-write-create (under "/.git/HOOKS/pre-commit"))
                         (file 'file-write-create (under "/.git/hookS"))
                         (file 'file-write-data (under "/.git/Config"))
                         (file 'file-write-data (under "/.git/confiG"))
                         (file 'file-write-create (under "/.git/COMMONDIR"))
                         (file 'file-write-create (under "/.git/commondiR"))
                         (file 'file-write-create (under "/.git/Config.worktree"))
                         (file 'file-write-create (under "/.git/config.Worktree"))
                         (file 'file-write-create (under "/.git/config.worktreE"))
                         (file 'file-write-data (under "/sub/.gIt/config"))
                         ;; Another letter case of HEAD is HEAD beside .git there.
                         (file 'file-write-create (under "/head"))
                         (file 'file-write-create (under "/Head"))
                         (file 'file-write-create (under "/HEAd"))
                         ;; Non-ASCII spellings of the same: U+212A KELVIN SIGN and U+017F
                         ;; LONG S case-fold to k and s (hooks, config.worktree), and HFS+
                         ;; ignores U+200C ZERO WIDTH NON-JOINER in a name (.git), in UTF-8.
                         (file 'file-write-create (under "/.git/hoo\xe2\x84\xaas/pre-commit"))
                         (file 'file-write-create (under "/.git/hook\xc5\xbf/pre-commit"))
                         (file 'file-write-data (under "/.git/config.wor\xe2\x84\xaatree"))
                         (file 'file-write-data (under "/.g\xe2\x80\x8cit/config"))
                         (file 'file-write-create (under "/.\xe2\x80\x8cGIT/hooks/x"))
                         ;; ... also before the dot, and so does U+FEFF.
                         (file 'file-write-data (under "/\xe2\x80\x8c.git/config"))
                         (file 'file-write-create (under "/\xef\xbb\xbf.GIT/hooks/x"))
                         (file 'file-write-create (under "/HE\xe2\x80\x8cAD"))
                         (file 'file-write-create (under "/\xe2\x80\x8chead"))))
        ;; Hard links are refused everywhere: through one, a write inside a root could reach
        ;; a file outside it, or a protected one.
        (linked (list (file 'file-link (under "/x")) (file 'file-link (under "/.git/config"))))
        ;; A bare repository's own hooks, config and the files that make git read another
        ;; config, and a .git beside them, which git would find first.
        (bare (list (file 'file-write-create (under "/hooks/post-update"))
                    (file 'file-write-create (under "/hooks"))
                    (file 'file-write-data (under "/config"))
                    (file 'file-write-create (under "/config.worktree"))
                    (file 'file-write-create (under "/commondir"))
                    (file 'file-write-create (under "/.git"))))
        (bare-work (list (file 'file-write-create (under "/objects/ab/cdef"))
                         (file 'file-write-data (under "/refs/heads/main"))
                         (file 'file-write-data (under "/packed-refs"))
                         (file 'file-write-data (under "/config.lock"))))
        (outside (list (file 'file-write-data (under "-sibling/x"))
                       (file 'file-write-data (string-append (parent-of root) "/other")))))
    (append (map (lambda (q) (cons q (writable-in-mode))) (append writable bare-work))
            ;; A bare repository's paths beneath a .git that cannot be made are decided by the
            ;; rules of every root, like a sibling's.
            (map (lambda (q) (cons q (cond ((or (eq? kind 'bare) guards?) 'outside)
                                           (repository? 'deny)
                                           (else (writable-in-mode)))))
                 repository)
            (map (lambda (q) (cons q (if (eq? kind 'bare) 'deny 'outside))) bare)
            (map (lambda (q) (cons q 'deny)) (append protected linked))
            (map (lambda (q) (cons q 'allow))
                 (list (file 'file-read-data (under "/.git/config")) (file 'process-exec (under "/a.out"))))
            ;; A sibling or the parent is outside unless another root covers it.
            (map (lambda (q) (cons q 'outside)) outside))))

;; Does a root without a repository hold, strictly beneath it, a root git finds one from? Git
;; run there goes on looking above that repository once the command garbles its HEAD.
(define (guards? roots r)
  (and (not (cdr r))
       (any (lambda (o) (and (cdr o) (not (string=? (car o) (car r)))
                             (path-beneath? (car o) (car r))))
            roots)))

;; roots: (path . kind) pairs, kind #f (none), #t (a .git) or bare.
(define (path-writable? mode roots path)
  (and (string=? mode "workspace-write")
       (any (lambda (r) (path-beneath? path (car r))) roots)
       (not (any (lambda (r)
                   (let* ((root (car r))
                          (git-dir (string-append root (if (eq? (cdr r) 'bare) "" "/.git"))))
                     (or (string=? path root)
                         ;; Where git would look next: no .git, no bare repository there.
                         (and (guards? roots r)
                              (or (string=? path (string-append root "/.git"))
                                  (string=? path (string-append root "/HEAD"))))
                         (and (cdr r)
                              (or (string=? path (string-append root "/.git"))
                                  (path-beneath? path (string-append git-dir "/hooks"))
                                  (string=? path (string-append git-dir "/config"))
                                  (string=? path (string-append git-dir "/config.worktree"))
                                  (string=? path (string-append git-dir "/commondir"))
                                  (string=? path (string-append root "/HEAD")))))))
                 roots))))

(define (parse-root item)
  (cond ((string-prefix? "+" item) (cons (substring item 1) #t))
        ((string-prefix? "=" item) (cons (substring item 1) 'bare))
        ((string-prefix? "-" item) (cons (substring item 1) #f))
        (else (fail "root ~s is not marked + (repository), = (bare) or - (none)" item))))

(define (main args)
  (match args
    ((_ argv-file mode roots-file)
     (unless (member mode '("read-only" "workspace-write")) (fail "unknown mode ~a" mode))
     (call-with-values (lambda () (parse-argv (read-items argv-file)))
       (lambda (profile-text defines command)
         (set! parameters defines)
         (let* ((roots (map parse-root (read-items roots-file)))
                (profile (evaluate-profile (read-profile profile-text)))
                (table (append (always-table)
                               (append-map (lambda (r) (root-table mode (car r) (cdr r)
                                                                   (guards? roots r)))
                                           roots)))
                (checked 0))
           (check-inventory)
           (for-each (lambda (name)
                       (unless (member name used-parameters)
                         (fail "parameter ~a is defined but never used" name)))
                     (map car parameters))
           (for-each
            (lambda (entry)
              (let* ((request (car entry))
                     (path (request-field request 'path))
                     (expected (if (eq? (cdr entry) 'outside)
                                   (if (path-writable? mode roots path) 'allow 'deny)
                                   (cdr entry)))
                     (first (decide profile request 'first))
                     (last (decide profile request 'last)))
                (unless (eq? first last)
                  (fail "~s is decided by rule order: ~a when the first rule wins, ~a when the last does"
                        request first last))
                (unless (eq? first expected)
                  (fail "~s: the profile says ~a, expected ~a" request first expected))
                (set! checked (+ checked 1))))
            table)
           (format #t "~a decisions agree under first- and last-match; ~a parameters, ~a roots (~a holding a repository), command of ~a items~%"
                   checked (length parameters) (length roots) (count cdr roots) (length command))))))
    (_ (fail "usage: sbpl-model.scm ARGV-FILE MODE ROOTS-FILE"))))

(catch 'encoding-error
  (lambda () (setlocale LC_ALL "C.UTF-8"))
  (lambda args #t))
(main (command-line))
