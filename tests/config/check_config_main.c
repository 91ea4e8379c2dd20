/*
 * check_config_main.c - a stand-in for the `scope` dispatcher (written
 * elsewhere) so the check-config command can be tested on its own:
 * `check_config_main ARGS...` runs `scope check-config ARGS...`.
 */
int scope_cmd_check_config(int argc, char **argv);

int main(int argc, char **argv)
{
    argv[0] = "check-config";
    return scope_cmd_check_config(argc, argv);
}
